package com.example.couponlookup;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;

/**
 * A read-heavy service that serves coupons from local caches. It publishes nothing and evicts nothing itself:
 * the invalidation client (cdc-cache's Spring Boot starter) reads the connector's change topics and evicts the
 * entries a committed change concerns, whoever made the change. The caches are declared in application.yml.
 */
@SpringBootApplication
@EnableCaching // @Cacheable then uses the starter's cache manager: the caches of application.yml
public class CouponLookupApplication {

    public static void main(String[] args) {
        SpringApplication.run(CouponLookupApplication.class, args);
    }
}
