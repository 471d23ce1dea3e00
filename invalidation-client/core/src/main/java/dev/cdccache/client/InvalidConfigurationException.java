package dev.cdccache.client;

/**
 * A setting of the invalidation client is missing or wrong. Thrown when the configuration is built or the
 * client is created, never later, so a bad setting stops an application at start-up.
 *
 * <p>{@link #setting()} names the offending setting relative to the client's configuration root, in the
 * property form the Spring starter binds (for example {@code caches.coupons.key-columns}), so a caller can
 * prefix it with its own root ({@code cdc.invalidation.}).
 */
public class InvalidConfigurationException extends IllegalArgumentException {

    private final String setting;
    private final String problem;

    public InvalidConfigurationException(String setting, String problem) {
        super(setting + ": " + problem);
        this.setting = setting;
        this.problem = problem;
    }

    /** The setting that is wrong, for example {@code caches.coupons.table}. */
    public String setting() {
        return setting;
    }

    /**
     * The setting's full name under {@code root} (e.g. {@code "cdc.invalidation."}): the configuration's rules name
     * settings relative to the root, a reader of flat settings names the keys it read in full.
     */
    public String setting(String root) {
        return setting.startsWith(root) ? setting : root + setting;
    }

    /** What is wrong with it and what to write instead. */
    public String problem() {
        return problem;
    }
}
