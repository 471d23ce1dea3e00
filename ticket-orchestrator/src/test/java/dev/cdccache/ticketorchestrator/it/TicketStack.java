package dev.cdccache.ticketorchestrator.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.mariadb.jdbc.MariaDbDataSource;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.infra.process.FreePorts;
import dev.cdccache.infra.process.JavaProcess;
import dev.cdccache.ticketorchestrator.generator.GeneratedData;
import dev.cdccache.ticketorchestrator.generator.GeneratorProperties;
import dev.cdccache.ticketorchestrator.generator.TicketDataGenerator;

/**
 * Everything the integration tests of this module share, started once per test JVM: the real MariaDB and
 * Kafka of {@link LocalStack#shared()}, the {@code ticket_db} schema with generated data, the real
 * connector as a separate process capturing the reference tables, and orchestrator instances (Spring
 * contexts on random ports) started on first use by name.
 */
public final class TicketStack implements AutoCloseable {

    /** The database the service owns. */
    public static final String DATABASE = "ticket_db";
    /** The day generated ticket periods spread around; a fixed day keeps pages deterministic. */
    public static final LocalDate BASE_DATE = LocalDate.of(2026, 6, 15);
    /** coupon-service's database, when a test runs the real coupon-service. */
    public static final String COUPON_DATABASE = "coupon_db";
    /** Coupon deadline of instance "b", whose coupon-service never answers. */
    public static final int SILENT_COUPON_TIMEOUT_MS = 300;
    /** Tables the connector captures for this service's caches. */
    public static final List<String> CAPTURED = List.of(DATABASE + ".ticket_category", DATABASE + ".parking_lot",
            DATABASE + ".car_exchange_detail");

    private final LocalStack stack;
    private final GeneratedData data;
    private final ConnectorProcess connector;
    private final Map<String, OrchestratorInstance> instances = new LinkedHashMap<>();
    private final int closedPort;
    private final ServerSocket silentServer;
    private JavaProcess couponService;
    private int couponServicePort;

    private TicketStack() {
        try {
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                closedPort = probe.getLocalPort();
            }
            // the kernel completes TCP handshakes into the backlog, nothing ever answers
            silentServer = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        stack = LocalStack.shared();
        MariaDbServer db = stack.mariaDb();
        db.createDatabase(DATABASE);
        DataSource admin = adminDataSource();
        Flyway.configure().dataSource(admin).locations("classpath:db/migration").load().migrate();
        db.execute(DATABASE, "DELETE FROM season_ticket", "DELETE FROM car_exchange_detail",
                "DELETE FROM parking_lot", "DELETE FROM ticket_category");
        data = new TicketDataGenerator(new GeneratorProperties(false, 3, 300, 6, 0.4, 1, BASE_DATE, 3))
                .generate(admin);
        connector = ConnectorProcess.builder(Path.of(System.getProperty("cdc.connector.jar",
                        "target/cdc-connector-exec.jar")), stack)
                .name("ticket-orchestrator-it")
                .tables(CAPTURED)
                .logFile(Path.of("target", "connector-ticket-orchestrator-it.log"))
                .build()
                .start();
    }

    /** Starts the shared stack (tests get it through {@link TicketStackExtension}). */
    static TicketStack start() {
        return new TicketStack();
    }

    /** @return the MariaDB server (plain-SQL writes go through its admin user) */
    public MariaDbServer mariaDb() {
        return stack.mariaDb();
    }

    /** @return the real stack */
    public LocalStack localStack() {
        return stack;
    }

    /** @return what the generator inserted */
    public GeneratedData data() {
        return data;
    }

    /** @return the running connector */
    public ConnectorProcess connector() {
        return connector;
    }

    /**
     * The orchestrator instance of this name, started on first use with the settings given then (later
     * calls with the same name return the running instance and ignore the settings).
     *
     * @param name     instance name (also its log and pool name)
     * @param settings Spring properties on top of the ones pointing it at this stack
     */
    public synchronized OrchestratorInstance instance(String name, Map<String, String> settings) {
        return instances.computeIfAbsent(name, n -> OrchestratorInstance.start(n, this, settings));
    }

    /**
     * Instance "a": batched composition through the caches; coupon-service is a closed port (refused
     * connections).
     */
    public OrchestratorInstance instanceA() {
        return instance("a", Map.of("ticket.coupons.base-url", "http://127.0.0.1:" + closedPort));
    }

    /**
     * Instance "b": like "a", but coupon-service is a server that accepts connections and never answers;
     * the search waits at most {@link #SILENT_COUPON_TIMEOUT_MS} for it.
     */
    public OrchestratorInstance instanceB() {
        return instance("b", Map.of("ticket.coupons.base-url", "http://127.0.0.1:" + silentServer.getLocalPort(),
                "ticket.coupons.timeout", SILENT_COUPON_TIMEOUT_MS + "ms",
                "ticket.coupons.read-timeout", "5s"));
    }

    /** Instance in the naive per-item mode, through the caches or straight to the tables. */
    public OrchestratorInstance perItem(boolean referenceCache) {
        return instance(referenceCache ? "per-item" : "per-item-uncached", Map.of(
                "ticket.coupons.base-url", "http://127.0.0.1:" + closedPort,
                "ticket.composition.mode", "per-item",
                "ticket.composition.reference-cache", Boolean.toString(referenceCache)));
    }

    /**
     * The real coupon-service (its exec jar, {@code -Dcoupon.service.jar}) as a child process on its own
     * database {@code coupon_db} of this stack, started on first use; its tables are empty for the test to
     * fill.
     *
     * @return its base URL
     */
    public synchronized URI couponService() {
        if (couponService == null) {
            stack.mariaDb().createDatabase(COUPON_DATABASE);
            couponServicePort = FreePorts.next();
            JavaProcess process = JavaProcess.builder("coupon-service")
                    .jar(Path.of(System.getProperty("coupon.service.jar", "target/coupon-service-exec.jar")))
                    .jvmArg("-Xmx256m")
                    .jvmArg("-XX:TieredStopAtLevel=1")
                    .arg("--server.port=" + couponServicePort)
                    .arg("--spring.datasource.url=" + stack.mariaDb().jdbcUrl(COUPON_DATABASE))
                    .arg("--spring.datasource.username=" + stack.mariaDb().appUser())
                    .arg("--spring.datasource.password=" + stack.mariaDb().appPassword())
                    .arg("--cdc.invalidation.bootstrap-servers=" + stack.kafka().bootstrapServers())
                    .arg("--coupon.cache.mode=local")
                    // No connector captures coupon_db here, so its cache health is DOWN (missing topics): wait
                    // for liveness, which says the process serves, not that its caches are proven fresh.
                    .arg("--management.endpoint.health.probes.enabled=true")
                    .logFile(Path.of("target", "coupon-service-it.log"))
                    .start();
            try {
                process.awaitHttpOk(couponServiceUrl() + "/actuator/health/liveness", Duration.ofSeconds(120));
            } catch (RuntimeException e) {
                process.kill();
                throw e;
            }
            couponService = process;
        }
        return URI.create(couponServiceUrl());
    }

    /** Stops the real coupon-service (a later {@link #couponService()} starts it again). */
    public synchronized void stopCouponService() {
        if (couponService != null) {
            couponService.stop(Duration.ofSeconds(20));
            couponService = null;
        }
    }

    private String couponServiceUrl() {
        return "http://127.0.0.1:" + couponServicePort;
    }

    /** @return a data source connecting as the admin user to {@code ticket_db} */
    public DataSource adminDataSource() {
        try {
            MariaDbDataSource dataSource = new MariaDbDataSource(stack.mariaDb().jdbcUrl(DATABASE));
            dataSource.setUser(stack.mariaDb().adminUser());
            dataSource.setPassword(stack.mariaDb().adminPassword());
            return dataSource;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs statements as the admin user, autocommit: a writer that is not this service. */
    public void sql(String... statements) {
        stack.mariaDb().execute(DATABASE, statements);
    }

    @Override
    public synchronized void close() {
        instances.values().forEach(OrchestratorInstance::close);
        instances.clear();
        stopCouponService();
        connector.stop();
        try {
            silentServer.close();
        } catch (IOException e) {
            // closing a listening socket nobody reads from cannot lose anything
        }
    }
}
