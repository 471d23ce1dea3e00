package dev.cdccache.client;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a public type of the client core that is not part of its API. It is public only because another package of
 * the core wires it (the client is built from packages per concern: consuming, eviction, staleness, metrics...), and
 * it may change or disappear in any release. Code outside the core, the Spring Boot starter and the Hibernate module
 * included, uses the API listed in docs/client.md ("Public API") instead; {@code PublicApiTest} keeps it that way.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface Internal {
}
