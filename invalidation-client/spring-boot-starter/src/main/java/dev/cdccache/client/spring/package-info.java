/**
 * Spring Boot auto-configuration of the invalidation client: cdc.invalidation.* properties, a CacheManager for @Cacheable, lifecycle and failure analysis.
 */
package dev.cdccache.client.spring;
