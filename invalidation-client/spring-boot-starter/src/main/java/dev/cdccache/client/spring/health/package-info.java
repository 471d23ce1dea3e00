/**
 * Actuator health of the invalidation client (only with spring-boot-health on the classpath).
 */
package dev.cdccache.client.spring.health;
