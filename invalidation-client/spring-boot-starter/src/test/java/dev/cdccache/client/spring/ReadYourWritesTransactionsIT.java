package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.position.CommitPosition;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.mariadb.MariaDbServer;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.orm.jpa.EntityManagerFactoryUtils;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * With {@code read-your-writes.enabled}, a committed Spring transaction raises the instance's read floor to its own
 * commit position, read on its connection after the commit: with {@code DataSourceTransactionManager} and with
 * {@code JpaTransactionManager} (Hibernate), against a real MariaDB with the binlog on.
 */
class ReadYourWritesTransactionsIT {

    private static final String DB = "read_your_writes_tx_db";
    private static final AtomicLong ids = new AtomicLong(1000);
    private static MariaDbServer mariaDb;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1", "cdc.invalidation.await-ready=5s",
                    "cdc.invalidation.read-your-writes.enabled=true");

    @BeforeAll
    static void database() {
        mariaDb = LocalStack.shared().mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB, "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)");
    }

    /** The server's position now, read on another connection: the GTID of the last transaction committed. */
    private static CommitPosition serverPosition() throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@gtid_binlog_pos")) {
            rs.next();
            return CommitPosition.parse(rs.getString(1)).orElseThrow();
        }
    }

    @Test
    void aCommittedJdbcTransactionRaisesTheFloorToItsOwnPosition() {
        runner.withUserConfiguration(JdbcApp.class).run(context -> {
            InvalidationClient client = context.getBean(InvalidationClient.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            assertThat(client.readYourWrites().floor()).isEqualTo(CommitPosition.NONE);

            tx.executeWithoutResult(status -> jdbc.update("INSERT INTO item VALUES (?, 'jdbc')", ids.incrementAndGet()));

            CommitPosition written = serverPosition();
            assertThat(written.isEmpty()).isFalse();
            assertThat(client.readYourWrites().floor()).isEqualTo(written);
        });
    }

    @Test
    void aReadOnlyOrRolledBackTransactionRaisesNothing() {
        runner.withUserConfiguration(JdbcApp.class).run(context -> {
            InvalidationClient client = context.getBean(InvalidationClient.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);

            tx.setReadOnly(true);
            tx.executeWithoutResult(status -> jdbc.queryForList("SELECT name FROM item"));
            tx.setReadOnly(false);
            tx.executeWithoutResult(status -> {
                jdbc.update("INSERT INTO item VALUES (?, 'rolled back')", ids.incrementAndGet());
                status.setRollbackOnly();
            });

            assertThat(client.readYourWrites().floor()).isEqualTo(CommitPosition.NONE);
        });
    }

    /**
     * {@code @@last_gtid} is the session's last binlogged transaction: on a pooled session that wrote before, a
     * read-write transaction that writes nothing still finds the earlier write there. That is not this commit's
     * position (taken for a fresh commit below the proofs it looked like {@code RESET MASTER}, see
     * ReadYourWritesListenerFreshCommitTest): nothing is raised nor returned in the {@code Cdc-Position} header.
     */
    @Test
    void aTransactionThatWritesNothingOnASessionThatWroteBeforeRaisesNothing() {
        runner.withUserConfiguration(PooledJdbcApp.class).run(context -> {
            InvalidationClient client = context.getBean(InvalidationClient.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            tx.executeWithoutResult(status -> jdbc.update("INSERT INTO item VALUES (?, 'earlier')", ids.incrementAndGet()));
            CommitPosition earlier = client.readYourWrites().floor();
            assertThat(earlier.isEmpty()).isFalse();
            assertThat(jdbc.queryForObject("SELECT @@last_gtid", String.class)).as("the session keeps it")
                    .isEqualTo(earlier.toString());

            RequestWrites request = RequestWrites.open();
            try {
                tx.executeWithoutResult(status -> jdbc.queryForList("SELECT name FROM item"));
                assertThat(jdbc.queryForObject("SELECT @@last_gtid", String.class))
                        .as("a commit that binlogged nothing leaves the session's last GTID").isEqualTo(earlier.toString());
                assertThat(request.written()).as("not this transaction's write").isEqualTo(CommitPosition.NONE);
            } finally {
                request.close();
            }
        });
    }

    @Test
    void aCommittedJpaTransactionRaisesTheFloorToItsOwnPosition() {
        runner.withUserConfiguration(JpaApp.class).run(context -> {
            InvalidationClient client = context.getBean(InvalidationClient.class);
            EntityManagerFactory factory = context.getBean(EntityManagerFactory.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            tx.executeWithoutResult(status -> {
                EntityManager em = EntityManagerFactoryUtils.getTransactionalEntityManager(factory);
                Item item = new Item();
                item.id = ids.incrementAndGet();
                item.name = "jpa";
                em.persist(item);
            });

            CommitPosition written = serverPosition();
            assertThat(client.readYourWrites().floor()).isEqualTo(written);
        });
    }

    @Entity
    @Table(name = "item")
    public static class Item {
        @Id
        private Long id;
        private String name;
    }

    static InvalidationClient client() {
        return MockKafka.readyClient(InvalidationClientConfig.builder().bootstrapServers("unused:1")
                .maxStaleness(Duration.ofSeconds(30))
                .cache(CacheDefinition.builder("names").table(DB + ".item").keyColumns("id").build())
                .build());
    }

    static DataSource dataSource() throws Exception {
        return new SimpleDriverDataSource(new org.mariadb.jdbc.Driver(), mariaDb.jdbcUrl(DB), mariaDb.appUser(),
                mariaDb.appPassword());
    }

    /** What every application has: the client. */
    @Configuration(proxyBeanMethods = false)
    static class Client {

        @Bean
        InvalidationClient invalidationClient() {
            return client();
        }
    }

    /** What both applications have: the client and the DataSource. */
    @Configuration(proxyBeanMethods = false)
    @Import(Client.class)
    static class Common {

        @Bean
        DataSource dataSource() throws Exception {
            return ReadYourWritesTransactionsIT.dataSource();
        }
    }

    /** JDBC transactions and statements over the application's DataSource. */
    @Configuration(proxyBeanMethods = false)
    static class Jdbc {

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import({Common.class, Jdbc.class})
    static class JdbcApp {
    }

    /** One session reused by every transaction, as a connection pool reuses them. */
    @Configuration(proxyBeanMethods = false)
    @Import({Client.class, Jdbc.class})
    static class PooledJdbcApp {

        @Bean
        DataSource dataSource() throws Exception {
            return new SingleConnectionDataSource(ReadYourWritesTransactionsIT.dataSource().getConnection(), true);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(Common.class)
    static class JpaApp {

        @Bean
        LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource) {
            return TestJpa.entityManagerFactory(dataSource, Item.class);
        }

        @Bean
        JpaTransactionManager transactionManager(EntityManagerFactory factory) {
            return new JpaTransactionManager(factory);
        }
    }
}
