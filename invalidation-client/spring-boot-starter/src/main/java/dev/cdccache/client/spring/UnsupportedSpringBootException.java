package dev.cdccache.client.spring;

/** The application runs a Spring Boot the starter does not support; {@link SpringBootRequirement} says which. */
class UnsupportedSpringBootException extends IllegalStateException {

    private final String found;

    UnsupportedSpringBootException(String message, String found) {
        super(message);
        this.found = found;
    }

    /** The Spring Boot version found, or a phrase when it is unknown. */
    String found() {
        return found;
    }
}
