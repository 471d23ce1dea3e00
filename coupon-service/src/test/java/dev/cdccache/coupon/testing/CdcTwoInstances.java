package dev.cdccache.coupon.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.coupon.generator.CouponDataGenerator;
import dev.cdccache.coupon.generator.GenerationPlan;
import dev.cdccache.coupon.testing.ApiClient.Response;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The platform for the change-stream tests of a cache mode: a fresh database with the small data set, the real
 * connector capturing its place, coupon, coupon_attribute and coupon_progress tables, and two service instances
 * in that mode, both reporting the invalidation client UP.
 */
public final class CdcTwoInstances implements AutoCloseable {

    private static final Duration INVALIDATION_TIMEOUT = Duration.ofSeconds(30);

    private final LocalStack stack;
    private final String database;
    private final List<ServiceInstance> extra = new ArrayList<>();
    private ConnectorProcess connector;
    private Map<String, String> settings;
    private ServiceInstance first;
    private ServiceInstance second;

    private CdcTwoInstances(LocalStack stack, String database) {
        this.stack = stack;
        this.database = database;
    }

    /**
     * @param name names the database, the topic prefix, the connector and the client ids
     */
    public static CdcTwoInstances start(LocalStack stack, String name, String mode) throws Exception {
        return start(stack, name, mode, List.of(), admin -> { });
    }

    /**
     * Like {@link #start(LocalStack, String, String)}, with more tables of the test's own captured by the connector,
     * created (and filled) by {@code beforeConnector} once the service's schema and data are in place: rows written
     * there before the connector starts are not streamed.
     *
     * @param extraTables table names in the test database, without the database
     */
    public static CdcTwoInstances start(LocalStack stack, String name, String mode, List<String> extraTables,
            Consumer<DataSource> beforeConnector) throws Exception {
        return start(stack, name, mode, extraTables, beforeConnector, Map.of());
    }

    /** As above, with {@code overrides} on top of both instances' settings. */
    public static CdcTwoInstances start(LocalStack stack, String name, String mode, List<String> extraTables,
            Consumer<DataSource> beforeConnector, Map<String, String> overrides) throws Exception {
        CdcTwoInstances platform = new CdcTwoInstances(stack, TestDatabases.create(stack, "coupon_" + name));
        try {
            platform.startAll(name, mode, extraTables, beforeConnector, overrides);
            return platform;
        } catch (Exception e) {
            platform.close();
            throw e;
        }
    }

    private void startAll(String name, String mode, List<String> extraTables, Consumer<DataSource> beforeConnector,
            Map<String, String> overrides) throws Exception {
        DriverManagerDataSource admin = new DriverManagerDataSource(stack.mariaDb().jdbcUrl(database),
                stack.mariaDb().adminUser(), stack.mariaDb().adminPassword());
        // Schema and data before the connector starts: the stream then carries only the tests' changes.
        Flyway.configure().dataSource(admin).load().migrate();
        new CouponDataGenerator(admin).generate(GenerationPlan.SMALL, false, TestData.today());
        beforeConnector.accept(admin);
        List<String> tables = new ArrayList<>(List.of(database + ".place", database + ".coupon",
                database + ".coupon_attribute", database + ".coupon_progress"));
        extraTables.forEach(table -> tables.add(database + "." + table));

        String prefix = "coupon" + name;
        connector = ConnectorProcess.builder(Path.of(System.getProperty("coupon.connector-jar",
                        "target/cdc-connector-exec.jar")), stack)
                .name("coupon-" + name + "-it")
                .topicPrefix(prefix)
                .tables(tables)
                .build()
                .start();

        settings = ServiceInstance.databaseSettings(stack, database);
        settings.put("coupon.cache.mode", mode);
        settings.put("coupon.database", database);
        settings.put("cdc.invalidation.bootstrap-servers", stack.kafka().bootstrapServers());
        settings.put("cdc.invalidation.topic-prefix", prefix);
        // Generous on a loaded 2-core machine: these tests are about eviction, not the staleness bound.
        settings.put("cdc.invalidation.max-staleness", "30s");
        settings.putAll(overrides);
        settings.put("cdc.invalidation.client-id", "coupon-" + name + "-a");
        first = ServiceInstance.start(settings);
        settings.put("cdc.invalidation.client-id", "coupon-" + name + "-b");
        second = ServiceInstance.start(settings);
        for (ServiceInstance instance : both()) {
            awaitUp(instance);
        }
    }

    private static void awaitUp(ServiceInstance instance) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(instance.api().get("/actuator/health/cdcInvalidation").json().path("status").asString())
                        .isEqualTo("UP"));
    }

    /**
     * One more instance in the same mode on the same database and topics, with {@code overrides} on top of the
     * pair's settings (and a client id of its own); closed with the platform.
     */
    public ServiceInstance startAnother(String clientId, Map<String, String> overrides) {
        Map<String, String> own = new LinkedHashMap<>(settings);
        own.put("cdc.invalidation.client-id", clientId);
        own.putAll(overrides);
        ServiceInstance instance = ServiceInstance.start(own);
        extra.add(instance);
        awaitUp(instance);
        return instance;
    }

    public String database() {
        return database;
    }

    public ServiceInstance first() {
        return first;
    }

    public ServiceInstance second() {
        return second;
    }

    public List<ServiceInstance> both() {
        return List.of(first, second);
    }

    public void sql(String... statements) {
        TestDatabases.sql(stack, database, statements);
    }

    /** Waits until both instances answer {@code path} as {@code expectation} demands. */
    public void awaitOnBoth(String path, Consumer<Response> expectation) {
        for (ServiceInstance instance : both()) {
            await().atMost(INVALIDATION_TIMEOUT).pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> expectation.accept(instance.api().get(path)));
        }
    }

    @Override
    public void close() {
        List<AutoCloseable> parts = new ArrayList<>(extra);
        parts.addAll(Arrays.asList(first, second, connector));
        for (AutoCloseable part : parts) {
            if (part != null) {
                try {
                    part.close();
                } catch (Exception e) {
                    // keep closing the others
                }
            }
        }
    }
}
