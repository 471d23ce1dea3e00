package dev.cdccache.contract;

/**
 * A setting that is wrong, and why: what a validation reports so that the caller can fail start-up naming the
 * setting in its own terms.
 *
 * @param setting the full name of the setting, under the prefix the caller gave
 *        (e.g. {@code cdc.connector.kafka.security.sasl.password})
 * @param problem what is wrong with it and what to write instead
 */
public record SettingProblem(String setting, String problem) {

    @Override
    public String toString() {
        return setting + ": " + problem;
    }
}
