package dev.cdccache.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.kafka.KafkaBroker;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.infra.process.FreePorts;
import dev.cdccache.infra.process.ManagedProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(LocalStackExtension.class)
class LocalStackIT {

    @Test
    void mariaDbRunsWithTheBinlogInTheFormDebeziumNeeds(MariaDbServer db) throws SQLException {
        try (Connection c = db.adminConnection(null); Statement s = c.createStatement()) {
            assertThat(variable(s, "log_bin")).isEqualTo("ON");
            assertThat(variable(s, "binlog_format")).isEqualTo("ROW");
            assertThat(variable(s, "binlog_row_image")).isEqualTo("FULL");
            assertThat(Integer.parseInt(variable(s, "server_id"))).isPositive();
        }
    }

    @Test
    void connectorUserHasOnlyWhatDebeziumNeeds(MariaDbServer db) throws SQLException {
        List<String> grants = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(null), db.connectorUser(), db.connectorPassword());
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW GRANTS")) {
            while (rs.next()) {
                grants.add(rs.getString(1));
            }
        }
        String global = grants.get(0);
        assertThat(global).contains("SELECT", "RELOAD", "SHOW DATABASES", "REPLICATION SLAVE", "SLAVE MONITOR", "LOCK TABLES")
                .containsAnyOf("REPLICATION CLIENT", "BINLOG MONITOR")
                .doesNotContain("ALL PRIVILEGES", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP");
        assertThat(String.join("\n", grants)).contains("INSERT, UPDATE ON `cdc_meta`.`heartbeat`");
    }

    @Test
    void appUserWritesOnlyItsOwnDatabases(MariaDbServer db) throws SQLException {
        db.createDatabase("infra_it_app");
        try (Connection c = DriverManager.getConnection(db.jdbcUrl("infra_it_app"), db.appUser(), db.appPassword());
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS t (id BIGINT PRIMARY KEY)");
            s.execute("REPLACE INTO t VALUES (1)");
            assertThatThrownBy(() -> s.execute("CREATE DATABASE not_granted_db")).isInstanceOf(SQLException.class);
        }
    }

    @Test
    void kafkaBrokerRoundTripsRecords(KafkaBroker kafka) {
        String topic = "infra-it-roundtrip";
        kafka.createTopic(topic, 3);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(kafka))) {
            for (int i = 0; i < 30; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
            }
            producer.flush();
        }
        assertThat(readAll(kafka, topic, 3, 30)).hasSize(30);
    }

    @Test
    void restartsKeepPortsAndData(@TempDir Path dir) throws SQLException {
        try (MariaDbServer db = MariaDbServer.builder(dir.resolve("db")).build().start();
                KafkaBroker kafka = KafkaBroker.builder(dir.resolve("kafka")).heap("384m").build().start()) {
            db.createDatabase("restart_it");
            db.execute("restart_it", "CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (7)");
            kafka.createTopic("restart-it", 1);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(kafka))) {
                producer.send(new ProducerRecord<>("restart-it", "k", "before-restart"));
            }
            int dbPort = db.port();

            db.kill();
            assertThat(db.isRunning()).isFalse();
            db.start();
            kafka.kill();
            kafka.start();

            assertThat(db.port()).isEqualTo(dbPort);
            try (Connection c = db.adminConnection("restart_it"); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id FROM t")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(7);
            }
            assertThat(readAll(kafka, "restart-it", 1, 1)).containsExactly("before-restart");
        }
    }

    @Test
    void serverWithoutBinlogReportsItOff(@TempDir Path dir) throws SQLException {
        try (MariaDbServer db = MariaDbServer.builder(dir.resolve("nobinlog")).binlog(false).build().start();
                Connection c = db.adminConnection(null); Statement s = c.createStatement()) {
            assertThat(variable(s, "log_bin")).isEqualTo("OFF");
        }
    }

    @Test
    void killedProcessReleasesItsPort(@TempDir Path dir) {
        int port = FreePorts.next();
        ManagedProcess server = ManagedProcess.start("listener", List.of("python3", "-c",
                "import socket,time; s=socket.socket(); s.bind(('127.0.0.1'," + port + ")); s.listen(); time.sleep(600)"),
                Map.of(), dir, dir.resolve("listener.log"));
        server.awaitCondition("port " + port + " bound", Duration.ofSeconds(10), () -> !FreePorts.isFree(port));
        server.kill();
        assertThat(server.isAlive()).isFalse();
        assertThat(FreePorts.isFree(port)).isTrue();
    }

    private static String variable(Statement s, String name) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW VARIABLES LIKE '" + name + "'")) {
            assertThat(rs.next()).as(name).isTrue();
            return rs.getString(2);
        }
    }

    private static Properties producerProps(KafkaBroker kafka) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return p;
    }

    private static List<String> readAll(KafkaBroker kafka, String topic, int partitions, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.currentTimeMillis() + 30_000;
            while (values.size() < expected && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }
}
