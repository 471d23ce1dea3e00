package dev.cdccache.client.keymapping;

/** A row from which a cache key cannot be derived (missing column, value of the wrong type). */
public final class KeyMappingException extends Exception {

    public KeyMappingException(String message) {
        super(message, null, false, false);
    }
}
