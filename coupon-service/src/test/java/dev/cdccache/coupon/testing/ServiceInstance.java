package dev.cdccache.coupon.testing;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.position.ReadYourWrites;
import dev.cdccache.coupon.CouponServiceApplication;
import dev.cdccache.coupon.jdbc.StatementCounter;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One coupon-service instance: a full Spring Boot application with its own web server on a random
 * port, started in this JVM. Two of them side by side are two independent instances (own caches,
 * own connection pools, own change-stream consumers) sharing only the database, Kafka and Redis.
 */
public final class ServiceInstance implements AutoCloseable {

    private final ConfigurableApplicationContext context;
    private final ApiClient client;

    private ServiceInstance(ConfigurableApplicationContext context) {
        this.context = context;
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        this.client = new ApiClient("http://127.0.0.1:" + port);
    }

    /** Settings shared by every test instance against {@code database} on the stack's MariaDB. */
    public static Map<String, String> databaseSettings(LocalStack stack, String database) {
        MariaDbServer mariaDb = stack.mariaDb();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("server.port", "0");
        settings.put("spring.datasource.url", mariaDb.jdbcUrl(database));
        settings.put("spring.datasource.username", mariaDb.appUser());
        settings.put("spring.datasource.password", mariaDb.appPassword());
        settings.put("spring.datasource.hikari.minimum-idle", "2");
        settings.put("management.metrics.use-global-registry", "false");
        return settings;
    }

    /** Starts an instance; the settings are passed as command-line arguments, so they win over application.yml. */
    public static ServiceInstance start(Map<String, String> settings) {
        List<String> args = new ArrayList<>();
        settings.forEach((key, value) -> args.add("--" + key + "=" + value));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(CouponServiceApplication.class)
                .run(args.toArray(String[]::new));
        return new ServiceInstance(context);
    }

    public ApiClient api() {
        return client;
    }

    /** Statements this instance has executed so far. */
    public long statements() {
        return context.getBean(StatementCounter.class).count();
    }

    /**
     * Waits until every cache of this instance has proven its read floor applied, so that a hit is served from the
     * cache again: after this instance's own writes (read-your-writes), a hit under an unproven floor bypasses the
     * cache, which a test counting statements would see as a query.
     */
    public void awaitOwnWritesApplied() {
        ReadYourWrites readYourWrites = context.getBean(InvalidationClient.class).readYourWrites();
        if (!readYourWrites.awaitApplied(readYourWrites.floor(), Duration.ofSeconds(30))) {
            throw new AssertionError("read floor " + readYourWrites.floor() + " not proven applied within 30 s");
        }
    }

    public DataSource dataSource() {
        return context.getBean(DataSource.class);
    }

    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    @Override
    public void close() {
        context.close();
    }
}
