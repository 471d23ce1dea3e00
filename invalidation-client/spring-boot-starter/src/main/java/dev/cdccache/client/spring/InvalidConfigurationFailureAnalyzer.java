package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.settings.ClientSettings;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns an invalid {@code cdc.invalidation.*} setting into a start-up message naming the setting. */
class InvalidConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidConfigurationException cause) {
        String setting = cause.setting(ClientSettings.PREFIX);
        return new FailureAnalysis("Invalid CDC invalidation client setting '" + setting + "': " + cause.problem(),
                "Correct '" + setting + "' in your application configuration (see docs/client.md for every setting).",
                cause);
    }
}
