package dev.cdccache.client;

import java.util.Locale;

/**
 * How a cache's text keys are normalised, both the keys the application looks up and the keys derived from
 * change events, so that keys the database considers equal are equal in the cache.
 *
 * <p>Why: under a case-insensitive collation (MariaDB's and MySQL's defaults) {@code abc10} and {@code ABC10}
 * are the same row, but different cache keys. Without normalisation a "not found" cached under {@code abc10}
 * survives the insert of {@code ABC10} (whose event evicts {@code ABC10} only), and a value cached under one
 * spelling survives a change whose event carries the other.
 *
 * <p>Limits: only letter case is folded (with {@link Locale#ROOT} rules). A collation that also ignores accents
 * ({@code utf8mb4_unicode_ci}: {@code é = e}) or trailing spaces ({@code PAD SPACE}) makes more keys equal than
 * this does; such keys must be normalised by the application (or the cache keyed on the primary key). Applies to
 * single-column text keys; other keys (numbers, composite keys) are left as they are.
 */
public enum KeyNormalization {
    /** Keys are used as they are (the default): right for case-sensitive ({@code _bin}, {@code _cs}) columns. */
    NONE,
    /** Text keys are lower-cased. Prefer this one: lower-casing never changes a string's length. */
    LOWER_CASE,
    /** Text keys are upper-cased. */
    UPPER_CASE;

    /** {@code key} normalised: a {@link String} case-folded, any other key unchanged. */
    public Object apply(Object key) {
        if (this == NONE || !(key instanceof String text)) {
            return key;
        }
        return this == LOWER_CASE ? text.toLowerCase(Locale.ROOT) : text.toUpperCase(Locale.ROOT);
    }
}
