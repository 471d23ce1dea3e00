package dev.cdccache.connector.config;

import dev.cdccache.contract.HeartbeatTable;
import dev.cdccache.contract.KafkaSecurity;
import dev.cdccache.contract.SettingProblem;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
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
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;
import org.springframework.validation.annotation.Validated;

/**
 * The connector's settings, bound from {@code cdc.connector.*}.
 *
 * <p>Binding is strict: a setting under {@code cdc.connector} that this class does not know fails
 * start-up (a typo must not silently fall back to a default), and the constraints below are
 * checked before anything connects; so are the Kafka security settings ({@link #validate}), which name the
 * offending setting. {@link #toString()} never shows the database password.
 */
@Validated
@ConfigurationProperties(prefix = ConnectorProperties.PREFIX, ignoreUnknownFields = false)
public class ConnectorProperties implements Validator {

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

    /** What the connector does when it cannot prove that it resumes where it stopped. */
    @Valid
    @NotNull
    private Continuity continuity = new Continuity();

    /** Which columns travel in the events. */
    @Valid
    @NotNull
    private Columns columns = new Columns();

    /** Where the engine stores its binlog position. */
    @Valid
    @NotNull
    private Offsets offsets = new Offsets();

    /** When one transaction's row events of a table are replaced by one table-wide eviction. */
    @Valid
    @NotNull
    private LargeTransactions largeTransactions = new LargeTransactions();

    /** Debezium snapshot mode; {@code no_data} captures the schema only (caches start empty). */
    @NotBlank
    private String snapshotMode = "no_data";

    /**
     * How long the engine's poll waits for a change when there is none (at most 5 s) before its loop turns. A change
     * is handed over as soon as it is queued whatever this is, so it sets only how often an idle engine wakes up.
     */
    @NotNull
    private Duration pollInterval = Duration.ofSeconds(1);

    /**
     * Largest batch handed to the publisher at once. Every record of a batch and of the queue stays in the heap until
     * Kafka acknowledged its batch: with a few thousand of them a bulk write kept so much alive that young
     * collections took more CPU than the binlog reader, and a small batch costs only a flush per batch.
     */
    @Min(1)
    private int maxBatchSize = 1024;

    /** Capacity of the engine's queue between the binlog reader and the publisher, in records. */
    @Min(2)
    private int maxQueueSize = 2048;

    /** Print the settings as a Kafka Connect connector configuration (JSON) and exit. */
    private boolean exportConnectConfig;

    /**
     * Further Debezium connector properties (advanced tuning), applied after the connector's own. Only properties
     * that tune speed, timeouts, retries or snapshots, and column masks of non-key columns, are accepted; start-up
     * refuses the others (see {@code DebeziumOverrideCheck}).
     */
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
    public Continuity getContinuity() { return continuity; }
    public void setContinuity(Continuity continuity) { this.continuity = continuity; }
    public Columns getColumns() { return columns; }
    public void setColumns(Columns columns) { this.columns = columns; }
    public Offsets getOffsets() { return offsets; }
    public void setOffsets(Offsets offsets) { this.offsets = offsets; }
    public LargeTransactions getLargeTransactions() { return largeTransactions; }
    public void setLargeTransactions(LargeTransactions largeTransactions) { this.largeTransactions = largeTransactions; }
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

    /**
     * The database the heartbeat row is written to and read from: the configured {@link Heartbeat#getPrimary() primary}
     * (with the connector's user and password unless it has its own), otherwise the server whose binlog is read.
     */
    public Database heartbeatDatabase() {
        Primary primary = heartbeat.getPrimary();
        if (!primary.isConfigured()) {
            return database;
        }
        boolean ownUser = primary.getUser() != null && !primary.getUser().isBlank();
        Database target = new Database();
        target.setFlavor(database.getFlavor());
        target.setHost(primary.getHost());
        target.setPort(primary.getPort());
        target.setUser(ownUser ? primary.getUser() : database.getUser());
        target.setPassword(ownUser ? primary.getPassword() : database.getPassword());
        target.setKeepAliveInterval(database.getKeepAliveInterval());
        return target;
    }

    /** The settings that name the database {@link #heartbeatDatabase()} returns, for messages. */
    public String heartbeatDatabaseSettings() {
        return heartbeat.getPrimary().isConfigured() ? PREFIX + ".heartbeat.primary" : PREFIX + ".database";
    }

    @Override
    public boolean supports(Class<?> type) {
        return ConnectorProperties.class.isAssignableFrom(type);
    }

    /** Rejects Kafka security settings that cannot work, each problem naming its {@code cdc.connector.kafka.security} setting. */
    @Override
    public void validate(Object target, Errors errors) {
        for (SettingProblem problem : ((ConnectorProperties) target).kafka.security.problems(PREFIX + ".kafka.security.")) {
            errors.reject("kafkaSecurity", problem.toString());
        }
    }

    @Override
    public String toString() {
        return "ConnectorProperties{name=" + name + ", database=" + database + ", tables=" + tables
                + ", topicPrefix=" + topicPrefix + ", topicPartitions=" + topicPartitions
                + ", kafka=" + kafka + ", heartbeat=" + heartbeat + ", continuity=" + continuity + ", offsets=" + offsets
                + ", largeTransactions=" + largeTransactions + ", snapshotMode=" + snapshotMode + ", pollInterval=" + pollInterval + "}";
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
        /** Authentication and encryption of every connection to Kafka (typed; see {@link KafkaSecurity}). */
        @NotNull
        @NestedConfigurationProperty // a record of another module: list its settings in the IDE metadata
        private KafkaSecurity security = KafkaSecurity.plaintext();
        /**
         * Further client properties passed to every Kafka client (e.g. {@code ssl.cipher.suites}); a property the
         * {@link #security} settings produce may not be repeated here.
         */
        private Map<String, String> properties = new LinkedHashMap<>();

        public String getBootstrapServers() { return bootstrapServers; }
        public void setBootstrapServers(String bootstrapServers) { this.bootstrapServers = bootstrapServers; }
        public KafkaSecurity getSecurity() { return security; }
        public void setSecurity(KafkaSecurity security) { this.security = security; }
        public Map<String, String> getProperties() { return properties; }
        public void setProperties(Map<String, String> properties) { this.properties = properties; }

        /**
         * What every Kafka client the connector creates gets on top of {@code bootstrap.servers}: the security
         * settings, then {@link #properties}. The result carries secrets: never log it.
         */
        public Map<String, String> clientProperties() {
            Map<String, String> client = new LinkedHashMap<>(security.clientProperties());
            client.putAll(properties);
            return client;
        }

        /** A property set both through {@link #security} and {@link #properties} is ambiguous. */
        @AssertTrue(message = "a Kafka client property is set both under cdc.connector.kafka.security and "
                + "cdc.connector.kafka.properties; keep one (the typed security settings are preferred)")
        public boolean isPropertiesDoNotRepeatSecurity() {
            return properties.keySet().stream().noneMatch(security.clientProperties()::containsKey);
        }

        @Override
        public String toString() {
            // Client properties may carry SASL secrets: names only.
            return "{bootstrapServers=" + bootstrapServers + ", security=" + security + ", properties="
                    + properties.keySet() + "}";
        }
    }

    /** The heartbeat the connector writes and captures. */
    public static class Heartbeat {
        /** How often the heartbeat row is written; 0 disables heartbeats. */
        @NotNull
        private Duration interval = Duration.ofSeconds(1);
        /** The heartbeat table, {@code database.table}, of the shape docs/contract.md gives (one row per connector). */
        @NotBlank
        @Pattern(regexp = "[^.\\s]+\\.[^.\\s]+", message = "must be written as database.table")
        private String table = HeartbeatTable.DEFAULT_NAME;

        /**
         * The primary of the replica the connector reads (see docs/connector.md, "Reading a replica"). When its host
         * is set, the heartbeat row is written there: it reaches the replica's binlog after every change the primary
         * committed before it. Required when the captured server is a replica; refused when it is not.
         */
        @Valid
        @NotNull
        private Primary primary = new Primary();

        public Duration getInterval() { return interval; }
        public void setInterval(Duration interval) { this.interval = interval; }
        public String getTable() { return table; }
        public void setTable(String table) { this.table = table; }
        public Primary getPrimary() { return primary; }
        public void setPrimary(Primary primary) { this.primary = primary; }

        /** Whether heartbeats are written at all. */
        public boolean isEnabled() { return !interval.isZero() && !interval.isNegative(); }

        @Override
        public String toString() { return "{interval=" + interval + ", table=" + table + ", primary=" + primary + "}"; }
    }

    /**
     * The primary server the heartbeat row is written to when the connector reads a replica. Unset (no host): the row
     * is written to the server whose binlog is read.
     */
    public static class Primary {
        /** Host of the primary the captured replica replicates from; unset when the connector reads a primary. */
        private String host;
        /** Port of the primary. */
        @Min(1)
        @Max(65535)
        private int port = 3306;
        /**
         * User on the primary with SELECT, INSERT and UPDATE on the heartbeat table (and SLAVE MONITOR on MariaDB);
         * cdc.connector.database.user when unset.
         */
        private String user;
        /** Password of the primary's user; cdc.connector.database.password when the user is unset. Never logged. */
        private String password;

        public String getHost() { return host; }
        public void setHost(String host) { this.host = host; }
        public int getPort() { return port; }
        public void setPort(int port) { this.port = port; }
        public String getUser() { return user; }
        public void setUser(String user) { this.user = user; }
        public String getPassword() { return password; }
        public void setPassword(String password) { this.password = password; }

        /** Whether a primary is configured (its host is set). */
        public boolean isConfigured() { return host != null && !host.isBlank(); }

        /** A user of its own needs a password of its own: the connector user's password is not sent to another user. */
        @AssertTrue(message = "cdc.connector.heartbeat.primary.user is set without "
                + "cdc.connector.heartbeat.primary.password; set both, or neither to use the connector's database user")
        public boolean isPasswordGivenWithUser() {
            return user == null || user.isBlank() || password != null;
        }

        /** User and password are settings of a configured primary only. */
        @AssertTrue(message = "cdc.connector.heartbeat.primary.user or .password is set without "
                + "cdc.connector.heartbeat.primary.host; set the primary's host too")
        public boolean isHostGivenWithCredentials() {
            return isConfigured() || ((user == null || user.isBlank()) && password == null);
        }

        @Override
        public String toString() {
            return isConfigured() ? "{host=" + host + ", port=" + port + ", user=" + user + ", password="
                    + (password == null ? "<database.password>" : "******") + "}" : "<none>";
        }
    }

    /** What to do about gaps in the stream (see docs/connector.md, "Continuity and epochs"). */
    public static class Continuity {
        /**
         * When the stored binlog position was purged from the server, was read from another server, or lies in a
         * binlog history that was reset since: {@code new-epoch} starts at the current position under a new epoch
         * (clients drop what they cannot prove), {@code fail} stops start-up with the remedy so that an operator
         * decides.
         */
        @NotNull
        private LostPositionPolicy onLostPosition = LostPositionPolicy.NEW_EPOCH;

        public LostPositionPolicy getOnLostPosition() { return onLostPosition; }
        public void setOnLostPosition(LostPositionPolicy onLostPosition) { this.onLostPosition = onLostPosition; }

        @Override
        public String toString() { return "{onLostPosition=" + onLostPosition + "}"; }
    }

    /** What to do when the stored binlog position is gone. */
    public enum LostPositionPolicy {
        /** Start at the current binlog position under a new epoch; every client drops what it cannot prove. */
        NEW_EPOCH,
        /** Stop start-up with the remedy. */
        FAIL
    }

    /** Column lists name columns of captured tables; a typo would otherwise silently send or drop columns. */
    @AssertTrue(message = "every entry of cdc.connector.columns.include/exclude/mask/cache-keys must be database.table.column "
            + "of a table in cdc.connector.tables")
    public boolean isColumnsOfCapturedTables() {
        java.util.Set<String> captured = new java.util.HashSet<>();
        tables.forEach(t -> captured.add(t.trim()));
        List<String> all = new ArrayList<>(columns.include);
        all.addAll(columns.exclude);
        all.addAll(columns.mask);
        all.addAll(columns.cacheKeys);
        return all.stream().allMatch(c -> {
            String[] parts = c == null ? new String[0] : c.trim().split("\\.", -1);
            return parts.length == 3 && !parts[2].isEmpty() && captured.contains(parts[0] + "." + parts[1]);
        });
    }

    /** A per-table threshold names a captured table; a typo would otherwise silently keep the default. */
    @AssertTrue(message = "every key of cdc.connector.large-transactions.tables must be a table of cdc.connector.tables, "
            + "written as database.table")
    public boolean isLargeTransactionTablesCaptured() {
        java.util.Set<String> captured = new java.util.HashSet<>();
        tables.forEach(t -> captured.add(t == null ? "" : t.trim().toLowerCase(java.util.Locale.ROOT)));
        return largeTransactions.tables.keySet().stream()
                .allMatch(t -> t != null && captured.contains(t.trim().toLowerCase(java.util.Locale.ROOT)));
    }

    /** Debezium accepts only one of the two lists. */
    @AssertTrue(message = "set either cdc.connector.columns.include or cdc.connector.columns.exclude, not both")
    public boolean isColumnsIncludeOrExclude() {
        return columns.include.isEmpty() || columns.exclude.isEmpty();
    }

    /** Debezium column lists, each entry {@code database.table.column}. */
    public static class Columns {
        /**
         * Only these columns of the tables they name travel, e.g. just the key columns of a table with personal
         * data; tables not named keep all their columns. Exclusive with {@link #exclude}.
         */
        private List<String> include = new ArrayList<>();
        /** These columns never travel. */
        private List<String> exclude = new ArrayList<>();
        /** These columns travel as asterisks; never a key column (start-up refuses it). */
        private List<String> mask = new ArrayList<>();
        /**
         * Columns besides the primary keys that clients build cache keys from (a secondary key such as
         * {@code coupon_db.coupon.code}): start-up refuses to mask, hash or truncate them, as it does primary keys.
         */
        private List<String> cacheKeys = new ArrayList<>();

        public List<String> getInclude() { return include; }
        public void setInclude(List<String> include) { this.include = include; }
        public List<String> getExclude() { return exclude; }
        public void setExclude(List<String> exclude) { this.exclude = exclude; }
        public List<String> getMask() { return mask; }
        public void setMask(List<String> mask) { this.mask = mask; }
        public List<String> getCacheKeys() { return cacheKeys; }
        public void setCacheKeys(List<String> cacheKeys) { this.cacheKeys = cacheKeys; }
    }

    /**
     * Large transactions (docs/connector.md, "Large transactions"): once one transaction has changed more than
     * {@link #evictTableAfterRows} rows of a table, the connector publishes one table-wide eviction for that table
     * instead of the transaction's remaining row events of it. Done by the embedded connector's publisher only: the
     * Kafka Connect export refuses these settings.
     */
    public static class LargeTransactions {
        /** The threshold when none is set. */
        public static final int DEFAULT_EVICT_TABLE_AFTER_ROWS = 10_000;

        /**
         * Rows of one table one transaction may change before the rest of its row events of that table are replaced
         * by one table-wide eviction; 0 never replaces them. Unset: {@value #DEFAULT_EVICT_TABLE_AFTER_ROWS}.
         */
        @Min(value = 0, message = "must be 0 (never) or a number of rows")
        private Integer evictTableAfterRows;
        /** Per-table thresholds ({@code database.table: rows}, 0 never), over {@link #evictTableAfterRows}. */
        private Map<String, @NotNull(message = "must be a number of rows") @Min(value = 0,
                message = "must be 0 (never) or a number of rows") Integer> tables = new LinkedHashMap<>();

        public Integer getEvictTableAfterRows() { return evictTableAfterRows; }
        public void setEvictTableAfterRows(Integer evictTableAfterRows) { this.evictTableAfterRows = evictTableAfterRows; }
        public Map<String, Integer> getTables() { return tables; }
        public void setTables(Map<String, Integer> tables) { this.tables = tables; }

        /**
         * Whether a threshold was set that would coalesce (above 0): the Kafka Connect export refuses it. Unset, the
         * default applies to the embedded connector only; 0 asks for what Connect does anyway.
         */
        public boolean isConfigured() {
            return (evictTableAfterRows != null && evictTableAfterRows > 0)
                    || tables.values().stream().anyMatch(rows -> rows != null && rows > 0);
        }

        /** The threshold of every table without one of its own; 0 never. */
        public int defaultThreshold() {
            return evictTableAfterRows == null ? DEFAULT_EVICT_TABLE_AFTER_ROWS : evictTableAfterRows;
        }

        /** The thresholds of the tables that have their own, by lower-case {@code database.table}. */
        public Map<String, Integer> tableThresholds() {
            Map<String, Integer> byTable = new LinkedHashMap<>();
            tables.forEach((table, rows) -> byTable.put(table.trim().toLowerCase(java.util.Locale.ROOT), rows));
            return byTable;
        }

        @Override
        public String toString() {
            return "{evictTableAfterRows=" + defaultThreshold() + (tables.isEmpty() ? "" : ", tables=" + tables) + "}";
        }
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
