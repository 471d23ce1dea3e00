package dev.cdccache.client.settings;

import java.util.List;
import java.util.Optional;

/**
 * Why a key under {@code cdc.invalidation.} names no setting, and what it most likely meant: what front ends put
 * in the start-up error of a misspelled setting, so that a typo never leaves a default silently in force.
 *
 * @param key the key as written, relative to {@code cdc.invalidation.}
 * @param parent the deepest valid part of the key ({@code caches.coupons}), {@code ""} at the top level
 * @param suggestion the key it most likely meant, relative, when one is a near miss
 * @param validHere the settings valid at that place, relative to {@code parent}; empty where {@code parent} is a
 *        single value
 */
public record UnknownSetting(String key, String parent, Optional<String> suggestion, List<String> validHere) {

    /** What is wrong, naming keys under {@code prefix} (e.g. {@code "cdc.invalidation."}). */
    public String problem(String prefix) {
        if (suggestion.isPresent()) {
            return "is not a setting of the invalidation client; did you mean " + prefix + suggestion.get() + "?";
        }
        if (validHere.isEmpty()) {
            return "is not a setting of the invalidation client: " + prefix + parent + " is a single value";
        }
        return "is not a setting of the invalidation client; valid under " + (parent.isEmpty() ? prefix
                : prefix + parent) + (parent.isEmpty() ? "" : ".") + " are " + String.join(", ", validHere);
    }
}
