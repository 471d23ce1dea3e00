package dev.cdccache.connector.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * The connector's settings, bound from {@code cdc.connector.*}.
 *
 * <p>Binding is strict: a setting under {@code cdc.connector} that this class does not know fails
 * start-up (a typo must not silently fall back to a default), and the constraints below are
 * checked before anything connects. {@link #toString()} never shows the database password.
 */
@Validated
@ConfigurationProperties(prefix = ConnectorProperties.PREFIX, ignoreUnknownFields = false)
public class ConnectorProperties {

    /** The prefix every setting of this class lives under. */
    public static final String PREFIX = "cdc.connector";

    /** Engine name; the offsets and schema-history topics are derived from it. */
    @NotBlank
    @Pattern(regexp = "[A-Za-z0-9._-]+", message = "may contain only letters, digits, '.', '_' and '-'")
    private String name = "cdc-connector";

    /** The database whose binlog is read. */
    @Valid
    @NotNull
    private Database database = new Database();

    /** Tables to capture, each as {@code database.table}. */
    @NotEmpty
    private List<@NotBlank @Pattern(regexp = "[^.\\s]+\\.[^.\\s]+", message = "must be written as database.table") String> tables =
            new ArrayList<>();

    /** First part of every topic name: {@code <topic-prefix>.<database>.<table>}. */
    @NotBlank
    @Pattern(regexp = "[A-Za-z0-9_-]+", message = "may contain only letters, digits, '_' and '-'")
    private String topicPrefix = "cdc";

    /** Partitions of each change topic the connector creates. */
    @Min(1)
    private int topicPartitions = 3;

    /** Replication factor of the topics the connector creates (change, offsets, schema history). */
    @Min(1)
    @Max(Short.MAX_VALUE)
    private int topicReplicationFactor = 1;

    /** The Kafka cluster events are published to. */
    @Valid
    @NotNull
    private Kafka kafka = new Kafka();

    /** The end-to-end heartbeat written into the database and captured like any table. */
    @Valid
    @NotNull
    private Heartbeat heartbeat = new Heartbeat();

    /** Which columns travel in the events. */
    @Valid
    @NotNull
    private Columns columns = new Columns();

    /** Where the engine stores its binlog position. */
    @Valid
    @NotNull
    private Offsets offsets = new Offsets();

    /** Debezium snapshot mode; {@code no_data} captures the schema only (caches start empty). */
    @NotBlank
    private String snapshotMode = "no_data";

    /** How long the engine waits for new binlog events before it hands over a batch. */
    @NotNull
    private Duration pollInterval = Duration.ofMillis(5);

    /** Largest batch handed to the publisher at once. */
    @Min(1)
    private int maxBatchSize = 2048;

    /** Capacity of the engine's queue between the binlog reader and the publisher. */
    @Min(2)
    private int maxQueueSize = 8192;

    /** Print the settings as a Kafka Connect connector configuration (JSON) and exit. */
    private boolean exportConnectConfig;

    /** Further Debezium connector properties, passed through unchanged (advanced tuning). */
    private Map<String, String> debezium = new LinkedHashMap<>();

    public String getName() { return name; }
    public void setName(String name) { this.name = name; }
    public Database getDatabase() { return database; }
    public void setDatabase(Database database) { this.database = database; }
    public List<String> getTables() { return tables; }
    public void setTables(List<String> tables) { this.tables = tables; }
    public String getTopicPrefix() { return topicPrefix; }
    public void setTopicPrefix(String topicPrefix) { this.topicPrefix = topicPrefix; }
    public int getTopicPartitions() { return topicPartitions; }
    public void setTopicPartitions(int topicPartitions) { this.topicPartitions = topicPartitions; }
    public int getTopicReplicationFactor() { return topicReplicationFactor; }
    public void setTopicReplicationFactor(int topicReplicationFactor) { this.topicReplicationFactor = topicReplicationFactor; }
    public Kafka getKafka() { return kafka; }
    public void setKafka(Kafka kafka) { this.kafka = kafka; }
    public Heartbeat getHeartbeat() { return heartbeat; }
    public void setHeartbeat(Heartbeat heartbeat) { this.heartbeat = heartbeat; }
    public Columns getColumns() { return columns; }
    public void setColumns(Columns columns) { this.columns = columns; }
    public Offsets getOffsets() { return offsets; }
    public void setOffsets(Offsets offsets) { this.offsets = offsets; }
    public String getSnapshotMode() { return snapshotMode; }
    public void setSnapshotMode(String snapshotMode) { this.snapshotMode = snapshotMode; }
    public Duration getPollInterval() { return pollInterval; }
    public void setPollInterval(Duration pollInterval) { this.pollInterval = pollInterval; }
    public int getMaxBatchSize() { return maxBatchSize; }
    public void setMaxBatchSize(int maxBatchSize) { this.maxBatchSize = maxBatchSize; }
    public int getMaxQueueSize() { return maxQueueSize; }
    public void setMaxQueueSize(int maxQueueSize) { this.maxQueueSize = maxQueueSize; }
    public boolean isExportConnectConfig() { return exportConnectConfig; }
    public void setExportConnectConfig(boolean exportConnectConfig) { this.exportConnectConfig = exportConnectConfig; }
    public Map<String, String> getDebezium() { return debezium; }
    public void setDebezium(Map<String, String> debezium) { this.debezium = debezium; }

    @Override
    public String toString() {
        return "ConnectorProperties{name=" + name + ", database=" + database + ", tables=" + tables
                + ", topicPrefix=" + topicPrefix + ", topicPartitions=" + topicPartitions
                + ", kafka=" + kafka + ", heartbeat=" + heartbeat + ", offsets=" + offsets
                + ", snapshotMode=" + snapshotMode + ", pollInterval=" + pollInterval + "}";
    }

    /** Which Debezium connector reads the binlog. */
    public enum Flavor {
        /** MariaDB: Debezium's MariaDB connector. */
        MARIADB,
        /** MySQL: Debezium's MySQL connector. */
        MYSQL
    }

    /** Connection to the database whose binlog is read. */
    public static class Database {
        /** MariaDB or MySQL; selects the Debezium connector. */
        @NotNull
        private Flavor flavor = Flavor.MARIADB;
        /** Database host name or address. */
        @NotBlank
        private String host;
        /** Database port. */
        @Min(1)
        @Max(65535)
        private int port = 3306;
        /** User with SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT. */
        @NotBlank
        private String user;
        /** Password of {@link #user}; never logged. */
        @NotNull
        private String password;
        /** Replication client id; derived from the connector name when not set. Unique per server. */
        @Min(1)
        private Long serverId;
        /**
         * How often a lost binlog connection is noticed and re-established (Debezium's
         * {@code connect.keep.alive.interval.ms}, one minute by default there). Short, because clients stop
         * trusting their caches after max-staleness while the connector is not streaming.
         */
        @NotNull
        private Duration keepAliveInterval = Duration.ofSeconds(2);

        public Flavor getFlavor() { return flavor; }
        public void setFlavor(Flavor flavor) { this.flavor = flavor; }
        public String getHost() { return host; }
        public void setHost(String host) { this.host = host; }
        public int getPort() { return port; }
        public void setPort(int port) { this.port = port; }
        public String getUser() { return user; }
        public void setUser(String user) { this.user = user; }
        public String getPassword() { return password; }
        public void setPassword(String password) { this.password = password; }
        public Long getServerId() { return serverId; }
        public void setServerId(Long serverId) { this.serverId = serverId; }
        public Duration getKeepAliveInterval() { return keepAliveInterval; }
        public void setKeepAliveInterval(Duration keepAliveInterval) { this.keepAliveInterval = keepAliveInterval; }

        @Override
        public String toString() {
            return "{flavor=" + flavor + ", host=" + host + ", port=" + port + ", user=" + user
                    + ", password=" + (password == null ? "<unset>" : "******") + ", serverId=" + serverId + "}";
        }
    }

    /** The Kafka cluster. */
    public static class Kafka {
        /** {@code host:port[,host:port]} of the brokers. */
        @NotBlank
        private String bootstrapServers;
        /** Client properties (security.protocol, sasl.*, ssl.*) passed to every Kafka client. */
        private Map<String, String> properties = new LinkedHashMap<>();

        public String getBootstrapServers() { return bootstrapServers; }
        public void setBootstrapServers(String bootstrapServers) { this.bootstrapServers = bootstrapServers; }
        public Map<String, String> getProperties() { return properties; }
        public void setProperties(Map<String, String> properties) { this.properties = properties; }

        @Override
        public String toString() {
            // Client properties may carry SASL secrets: names only.
            return "{bootstrapServers=" + bootstrapServers + ", properties=" + properties.keySet() + "}";
        }
    }

    /** The heartbeat the connector writes and captures. */
    public static class Heartbeat {
        /** How often the heartbeat row is written; 0 disables heartbeats. */
        @NotNull
        private Duration interval = Duration.ofSeconds(1);
        /** The heartbeat table, {@code database.table}, with columns {@code id} and {@code ts DATETIME(6)}. */
        @NotBlank
        @Pattern(regexp = "[^.\\s]+\\.[^.\\s]+", message = "must be written as database.table")
        private String table = "cdc_meta.heartbeat";

        public Duration getInterval() { return interval; }
        public void setInterval(Duration interval) { this.interval = interval; }
        public String getTable() { return table; }
        public void setTable(String table) { this.table = table; }

        /** Whether heartbeats are written at all. */
        public boolean isEnabled() { return !interval.isZero() && !interval.isNegative(); }

        @Override
        public String toString() { return "{interval=" + interval + ", table=" + table + "}"; }
    }

    /** Debezium column lists, each entry {@code database.table.column}. */
    public static class Columns {
        /** Only these columns travel (empty: all). Exclusive with {@link #exclude}. */
        private List<String> include = new ArrayList<>();
        /** These columns never travel. */
        private List<String> exclude = new ArrayList<>();
        /** These columns travel as asterisks. */
        private List<String> mask = new ArrayList<>();

        public List<String> getInclude() { return include; }
        public void setInclude(List<String> include) { this.include = include; }
        public List<String> getExclude() { return exclude; }
        public void setExclude(List<String> exclude) { this.exclude = exclude; }
        public List<String> getMask() { return mask; }
        public void setMask(List<String> mask) { this.mask = mask; }
    }

    /** Where the binlog position is stored. */
    public static class Offsets {
        /** {@code kafka} (default: survives a move to another host) or {@code file} (local runs). */
        @NotNull
        private OffsetStore store = OffsetStore.KAFKA;
        /** File of the {@code file} store. */
        @NotNull
        private Path file = Path.of("./data/offsets.dat");
        /** How often marked positions are written; correctness does not depend on it. */
        @NotNull
        private Duration flushInterval = Duration.ofSeconds(1);

        public OffsetStore getStore() { return store; }
        public void setStore(OffsetStore store) { this.store = store; }
        public Path getFile() { return file; }
        public void setFile(Path file) { this.file = file; }
        public Duration getFlushInterval() { return flushInterval; }
        public void setFlushInterval(Duration flushInterval) { this.flushInterval = flushInterval; }

        @Override
        public String toString() { return "{store=" + store + ", file=" + file + "}"; }
    }

    /** Offset store kinds. */
    public enum OffsetStore {
        /** A compacted Kafka topic named {@code <name>.offsets}. */
        KAFKA,
        /** A local file. */
        FILE
    }
}
