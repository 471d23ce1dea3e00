package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A cache key type that can never equal the keys events evict is a start-up error, not a cache whose
 * entries are silently never evicted (e.g. {@code Integer} ids over a {@code BIGINT} column: events evict
 * {@code Long}).
 */
class CacheKeyTypeCheckTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withPropertyValues(
                    "cdc.invalidation.bootstrap-servers=127.0.0.1:1",
                    "cdc.invalidation.await-ready=0s",
                    "cdc.invalidation.caches.coupons.table=coupon_db.coupon",
                    "cdc.invalidation.caches.coupons.key-columns=id",
                    "cdc.invalidation.caches.couponsByCode.table=coupon_db.coupon",
                    "cdc.invalidation.caches.couponsByCode.key-columns=code",
                    "cdc.invalidation.caches.couponsByCode.key-normalization=lower-case",
                    "cdc.invalidation.caches.byPlaceAndCode.table=coupon_db.coupon",
                    "cdc.invalidation.caches.byPlaceAndCode.key-columns=place_id,code",
                    "cdc.invalidation.caches.couponStats.table=coupon_db.coupon",
                    "cdc.invalidation.caches.couponStats.evict=all");

    @Test
    void anIntegerKeyOverAnIdThatEventsEvictAsLongFailsStartUpNamingTheMethodAndTheSetting() {
        runner.withUserConfiguration(IntegerKeys.class).run(context -> {
            assertThat(context).hasFailed();
            InvalidConfigurationException cause = CdcInvalidationAutoConfigurationTest.findCause(
                    context.getStartupFailure(), InvalidConfigurationException.class);
            assertThat(cause.setting()).isEqualTo("caches.coupons.key-type");
            assertThat(cause.problem()).contains(IntegerKeyService.class.getName() + ".find")
                    .contains("java.lang.Integer").contains("java.lang.Long").contains("never be evicted");
            FailureAnalysis analysis = new InvalidConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("cdc.invalidation.caches.coupons.key-type");
        });
    }

    @Test
    void aSingleParameterOverACompositeKeyFailsStartUp() {
        runner.withUserConfiguration(SingleParameterComposite.class).run(context -> assertThat(
                CdcInvalidationAutoConfigurationTest.findCause(context.getStartupFailure(),
                        InvalidConfigurationException.class).setting()).isEqualTo("caches.byPlaceAndCode.key-type"));
    }

    @Test
    void matchingKeyTypesAndKeyExpressionsStartAndTextKeysAreNormalised() {
        runner.withUserConfiguration(MatchingKeys.class).run(context -> {
            assertThat(context).hasNotFailed();
            MatchingKeyService service = context.getBean(MatchingKeyService.class);
            assertThat(service.byCode("ABC10")).isEqualTo("ABC10#1");
            // Without the client ready nothing is cached; the lookup key is normalised all the same.
            assertThat(context.getBean(CdcCacheManager.class).getCache("couponsByCode").getNativeCache().toString())
                    .contains("lower-case");
        });
    }

    @Test
    void aKeyBuiltAtRuntimeThatEventsNeverEvictFailsTheLookupInsteadOfCachingIt() {
        runner.withUserConfiguration(MatchingKeys.class).run(context -> {
            MatchingKeyService service = context.getBean(MatchingKeyService.class);
            assertThatThrownBy(() -> service.findByExpression(7L)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Cache 'coupons'").hasMessageContaining("java.lang.Integer")
                    .hasMessageContaining("never be evicted");
            assertThatThrownBy(() -> service.findByExpressionSync(7L)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("java.lang.Integer");
            assertThat(service.find(7L)).as("a matching key still works").isEqualTo("coupon 7");
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class IntegerKeys {
        @Bean
        IntegerKeyService integerKeyService() {
            return new IntegerKeyService();
        }
    }

    static class IntegerKeyService {
        @Cacheable("coupons")
        public String find(Integer id) {
            return "coupon " + id;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class SingleParameterComposite {
        @Bean
        SingleParameterCompositeService singleParameterCompositeService() {
            return new SingleParameterCompositeService();
        }
    }

    static class SingleParameterCompositeService {
        @Cacheable("byPlaceAndCode")
        public String find(String code) {
            return code;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class MatchingKeys {
        @Bean
        MatchingKeyService matchingKeyService() {
            return new MatchingKeyService();
        }
    }

    static class MatchingKeyService {
        private int calls;

        @Cacheable("coupons")
        public String find(long id) {
            return "coupon " + id;
        }

        @Cacheable(cacheNames = "coupons", key = "#id.longValue()") // an expression: not checked, the user's job
        public String findInt(Integer id) {
            return "coupon " + id;
        }

        @Cacheable(cacheNames = "coupons", key = "#id.intValue()") // an Integer: events evict Long
        public String findByExpression(Long id) {
            return "coupon " + id;
        }

        @Cacheable(cacheNames = "coupons", key = "#id.intValue()", sync = true)
        public String findByExpressionSync(Long id) {
            return "coupon " + id;
        }

        @Cacheable("couponsByCode")
        public String byCode(String code) {
            return code + "#" + (++calls);
        }

        @Cacheable("byPlaceAndCode")
        public String byPlaceAndCode(Long placeId, String code) {
            return placeId + code;
        }

        @Cacheable("couponStats")
        public String stats(Integer anything) {
            return "stats"; // evict-all caches match any key
        }
    }
}
