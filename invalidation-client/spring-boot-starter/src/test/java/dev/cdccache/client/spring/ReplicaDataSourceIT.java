package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.mariadb.MariaDbServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * A {@code @Cacheable} repository reading a replica DataSource named in {@code cdc.invalidation.replica.data-sources},
 * with a real primary and a {@code mariadbd} replicating from it with a delay. The client's applied position is moved
 * to the primary's latest change, as the consumer does before applying its invalidation (the event path itself is
 * covered by {@code ReplicaLoadsIT}): a read from the replica before it applied that change is not cached.
 */
class ReplicaDataSourceIT {

    private static final String DB = "replica_ds_db";
    private static MariaDbServer primary;
    private static MariaDbServer replica;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1", "cdc.invalidation.await-ready=5s",
                    "cdc.invalidation.replica.data-sources=replicaDataSource",
                    "cdc.invalidation.replica.wait-timeout=100ms");

    @BeforeAll
    static void servers() {
        primary = LocalStack.shared().mariaDb();
        replica = MariaDbServer.builder(Path.of("target", "replica-data-source-replica")).serverId(3).build().start();
        replica.replicateFrom(primary, Duration.ZERO);
        primary.createDatabase(DB);
        primary.execute(DB, "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)",
                "DELETE FROM item", "INSERT INTO item VALUES (1, 'old name')");
        replica.awaitReplicated(primary, Duration.ofSeconds(30));
        replica.replicationDelay(Duration.ofSeconds(30));
    }

    @AfterAll
    static void stop() {
        if (replica != null) {
            replica.close();
        }
    }

    @Test
    void aReadFromTheReplicaBeforeItAppliedAnInvalidatedChangeIsServedButNotCached() {
        runner.run(context -> {
            InvalidationClient client = context.getBean(InvalidationClient.class);
            InvalidatingCache<Long, String> items = context.getBean(CdcCacheManager.class).invalidatingCache("items");
            Repository repository = context.getBean(Repository.class);
            assertThat(repository.find(1L)).isEqualTo("old name");
            assertThat(items.lookup(1L).value()).as("nothing invalidated yet: cached").isEqualTo("old name");

            primary.execute(DB, "UPDATE item SET name = 'new name' WHERE id = 1");
            client.appliedPositions().advance(primaryPosition()); // what the consumer records...
            items.invalidate(1L);                                 // ...before it evicts

            assertThat(repository.find(1L)).as("the replica holds the change back").isEqualTo("old name");
            assertThat(items.lookup(1L)).isNull();
            assertThat(context.getBean(SimpleMeterRegistry.class).get("cdc.client.replica.waits")
                    .tag("result", "behind").functionCounter().count()).isEqualTo(1);
        });
    }

    @Test
    void aNameThatIsNotADataSourceBeanFailsStartUp() {
        runner.withPropertyValues("cdc.invalidation.replica.data-sources=replicaDataSorce").run(context -> {
            assertThat(context).hasFailed();
            assertThat(org.springframework.core.NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                    .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("replicaDataSorce")
                    .hasMessageContaining("replicaDataSource");
        });
    }

    private static String primaryPosition() throws Exception {
        try (Connection c = primary.adminConnection(null); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@gtid_binlog_pos")) {
            rs.next();
            String position = rs.getString(1);
            // One domain on this server: its position is this server's latest GTID.
            return position.contains(",") ? position.substring(0, position.indexOf(',')) : position;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class App {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        InvalidationClient invalidationClient(SimpleMeterRegistry registry) {
            return MockKafka.readyClient(InvalidationClientConfig.builder().bootstrapServers("unused:1")
                    .maxStaleness(Duration.ofSeconds(30)).meterRegistry(registry)
                    .cache(CacheDefinition.builder("items").table(DB + ".item").keyColumns("id").build())
                    .build());
        }

        @Bean
        DataSource replicaDataSource() {
            return new SimpleDriverDataSource(new org.mariadb.jdbc.Driver(), replica.jdbcUrl(DB), replica.adminUser(),
                    replica.adminPassword());
        }

        @Bean
        Repository repository(DataSource replicaDataSource) {
            return new Repository(new JdbcTemplate(replicaDataSource));
        }
    }

    static class Repository {
        private final JdbcTemplate jdbc;

        Repository(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Cacheable("items")
        public String find(Long id) {
            return jdbc.query("SELECT name FROM item WHERE id = ?", rs -> rs.next() ? rs.getString(1) : null, id);
        }
    }
}
