package dev.cdccache.client.keymapping;

import dev.cdccache.client.Internal;

/** A row from which a cache key cannot be derived (missing column, value of the wrong type). */
@Internal
public final class KeyMappingException extends Exception {

    public KeyMappingException(String message) {
        super(message, null, false, false);
    }
}
