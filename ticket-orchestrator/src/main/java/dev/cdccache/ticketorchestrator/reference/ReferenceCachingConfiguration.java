package dev.cdccache.ticketorchestrator.reference;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.spring.CdcCacheManager;

/**
 * Makes the invalidation client's cache manager this service's only {@code CacheManager}, declared here
 * rather than left to the starter's conditional beans, so {@code @Cacheable} and the bulk lookups use the same
 * CDC-invalidated caches whatever else is on the class path.
 */
@Configuration(proxyBeanMethods = false)
class ReferenceCachingConfiguration {

    @Bean
    CdcCacheManager cdcCacheManager(InvalidationClient client) {
        return new CdcCacheManager(client);
    }
}
