package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class InvalidationClientConfigTest {

    private static InvalidationClientConfig.Builder base() {
        return InvalidationClientConfig.builder().bootstrapServers("localhost:9092");
    }

    private static void assertRejected(InvalidationClientConfig.Builder builder, String setting, String problem) {
        assertThatThrownBy(builder::build).isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
            assertThat(e.setting()).isEqualTo(setting);
            assertThat(e.problem()).contains(problem);
        });
    }

    @Test
    void acceptsTheShortAndTheMultiSourceForms() {
        InvalidationClientConfig config = base()
                .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").build())
                .cache(CacheDefinition.builder("couponStats").table("coupon_db.coupon").evictAll().build())
                .cache(CacheDefinition.builder("couponsWithAttributes")
                        .source(SourceDefinition.keys("coupon_db.coupon", "id"))
                        .source(SourceDefinition.keys("coupon_db.coupon_attribute", "coupon_id")).build())
                .build();
        assertThat(config.caches()).hasSize(3);
        assertThat(config.heartbeatTopic()).isEqualTo("cdc.cdc_meta.heartbeat");
        assertThat(config.maxStaleness()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.stalenessPolicy()).isEqualTo(StalenessPolicy.BYPASS_CACHE);
        assertThat(config.stalenessCheck()).isEqualTo(StalenessCheck.SCHEDULED);
    }

    @Test
    void requiresBootstrapServers() {
        assertRejected(InvalidationClientConfig.builder(), "bootstrap-servers", "required");
    }

    @Test
    void rejectsATableNotInDatabaseDotTableForm() {
        assertRejected(base().cache(CacheDefinition.builder("c").table("coupon").keyColumns("id").build()),
                "caches.c.table", "database.table");
        assertRejected(base().cache(CacheDefinition.builder("c").source(SourceDefinition.keys("a.b.c", "id")).build()),
                "caches.c.sources[0].table", "database.table");
    }

    @Test
    void rejectsACacheWithoutKeyColumnsThatIsNotEvictAll() {
        assertRejected(base().cache(CacheDefinition.builder("c").table("db.t").build()),
                "caches.c.key-columns", "evict: all");
        assertRejected(base().cache(CacheDefinition.builder("c").build()), "caches.c.table", "required");
    }

    @Test
    void rejectsMixingTheShortFormWithSources() {
        assertRejected(base().cache(CacheDefinition.builder("c").table("db.t").keyColumns("id")
                .source(SourceDefinition.keys("db.u", "id")).build()), "caches.c", "either");
    }

    @Test
    void rejectsASingleValueKeyTypeWithSeveralColumns() {
        assertRejected(base().cache(CacheDefinition.builder("c").table("db.t").keyColumns("a", "b")
                .keyType(KeyType.LONG).build()), "caches.c.key-type", "composite");
    }

    @Test
    void rejectsSourcesWithDifferentKeyArity() {
        assertRejected(base().cache(CacheDefinition.builder("c").source(SourceDefinition.keys("db.t", "id"))
                .source(SourceDefinition.keys("db.u", "a", "b")).build()), "caches.c.sources", "same number");
    }

    @Test
    void rejectsAnInvalidOrUnsafeCaffeineSpec() {
        assertRejected(base().cache(CacheDefinition.builder("c").table("db.t").keyColumns("id")
                .spec("maximumSize=lots").build()), "caches.c.spec", "not a valid Caffeine specification");
        assertRejected(base().cache(CacheDefinition.builder("c").table("db.t").keyColumns("id")
                .spec("unknownOption=1").build()), "caches.c.spec", "not a valid Caffeine specification");
        assertRejected(base().cache(CacheDefinition.builder("c").table("db.t").keyColumns("id")
                .spec("refreshAfterWrite=1m").build()), "caches.c.spec", "refresh-ahead");
        assertRejected(base().cache(CacheDefinition.builder("c").table("db.t").keyColumns("id")
                .spec("weakKeys").build()), "caches.c.spec", "weakKeys");
    }

    @Test
    void rejectsRefreshAheadWithoutExpireAfterWriteOrOutOfRange() {
        assertRejected(base().cache(CacheDefinition.builder("c").table("db.t").keyColumns("id")
                .refreshAhead(0.7).build()), "caches.c.refresh-ahead", "expireAfterWrite");
        assertRejected(base().cache(CacheDefinition.builder("c").table("db.t").keyColumns("id")
                .spec("expireAfterWrite=10m").refreshAhead(1.5).build()), "caches.c.refresh-ahead", "fraction");
        assertThat(base().cache(CacheDefinition.builder("c").table("db.t").keyColumns("id")
                .spec("expireAfterWrite=10m").refreshAhead(0.7).build()).build().caches()).hasSize(1);
    }

    @Test
    void theClockSkewThresholdDefaultsTo250MillisAndMustBeBelowTheBound() {
        assertThat(base().build().maxClockSkew()).isEqualTo(Duration.ofMillis(250));
        assertThat(base().maxClockSkew(Duration.ZERO).build().maxClockSkew()).isZero();
        assertRejected(base().maxClockSkew(Duration.ofMillis(-1)), "max-clock-skew", "from 0 up to below");
        assertRejected(base().maxClockSkew(Duration.ofSeconds(5)), "max-clock-skew", "below max-staleness");
    }

    @Test
    void rejectsANonPositiveStalenessBound() {
        assertRejected(base().maxStaleness(Duration.ZERO), "max-staleness", "positive");
        assertRejected(base().maxStaleness(Duration.ofMillis(100)), "position-check-interval", "shorter");
    }

    @Test
    void theScheduledCheckDefaultsToAQuarterOfTheBoundAsSlackAndRejectsASlackNotShorterThanTheBound() {
        InvalidationClientConfig config = base().maxStaleness(Duration.ofSeconds(4))
                .stalenessCheck(StalenessCheck.SCHEDULED).build();
        assertThat(config.stalenessCheckSlack()).isEqualTo(Duration.ofSeconds(1));
        assertRejected(base().maxStaleness(Duration.ofSeconds(4)).stalenessCheck(StalenessCheck.SCHEDULED)
                .stalenessCheckSlack(Duration.ofSeconds(4)), "staleness-check-slack", "shorter than max-staleness");
        assertRejected(base().stalenessCheck(StalenessCheck.SCHEDULED).stalenessCheckSlack(Duration.ZERO),
                "staleness-check-slack", "at least 1ms");
        assertRejected(base().stalenessCheck(null), "staleness-check", "every-hit or scheduled");
    }

    @Test
    void aSpecThatAsksForStatisticsBuildsACacheThatRecordsThem() {
        InvalidationClientConfig config = base().cache(CacheDefinition.builder("c").table("db.t").keyColumns("id")
                .spec("maximumSize=10, recordStats").build()).build();
        try (InvalidationClient client = new InvalidationClient(config, props -> {
            throw new AssertionError("not started");
        })) {
            client.cache("c").getIfPresent(1L);
            assertThat(client.cache("c").caffeine().stats().missCount()).isEqualTo(1);
            assertThat(client.cache("c").caffeine().policy().eviction()).isPresent();
        }
    }

    @Test
    void rejectsABadTopicPrefix() {
        assertRejected(base().topicPrefix("bad prefix"), "topic-prefix", "topic name");
    }

    @Test
    void rejectsDuplicateCacheNames() {
        CacheDefinition c = CacheDefinition.builder("c").table("db.t").keyColumns("id").build();
        assertRejected(base().cache(c).cache(c), "caches.c", "twice");
    }
}
