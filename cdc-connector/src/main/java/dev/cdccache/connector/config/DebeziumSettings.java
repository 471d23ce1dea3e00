package dev.cdccache.connector.config;

import dev.cdccache.connector.config.ConnectorProperties.Flavor;
import dev.cdccache.connector.heartbeat.HeartbeatRow;
import dev.cdccache.contract.ConnectorHeader;
import dev.cdccache.contract.Epoch;
import io.debezium.config.Field;
import io.debezium.connector.mariadb.MariaDbConnectorConfig;
import io.debezium.connector.mysql.MySqlConnectorConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Translates {@link ConnectorProperties} into Debezium connector properties: once for the embedded
 * engine ({@link #engineProperties()}) and once as a Kafka Connect connector configuration
 * ({@link #connectConfig()}). Both share {@link #connectorProperties()}, so the two deployments run
 * the identical connector and produce identical events.
 */
public final class DebeziumSettings {

    /** Topic prefix of Debezium's own heartbeat records (they carry only a binlog position). */
    public static final String HEARTBEAT_TOPIC_PREFIX = "__debezium-heartbeat";

    /** Environment variable the exported Kafka Connect configuration reads the password from. */
    public static final String PASSWORD_ENV_VARIABLE = "CDC_CONNECTOR_DATABASE_PASSWORD";

    static final String MARIADB_CONNECTOR = "io.debezium.connector.mariadb.MariaDbConnector";
    static final String MYSQL_CONNECTOR = "io.debezium.connector.mysql.MySqlConnector";
    static final String KAFKA_OFFSET_STORE = "dev.cdccache.connector.engine.KafkaTopicOffsetStore";
    static final String FILE_OFFSET_STORE = "dev.cdccache.connector.engine.FileOffsetStore";
    static final String KAFKA_SCHEMA_HISTORY = "io.debezium.storage.kafka.history.KafkaSchemaHistory";
    static final String JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter";
    /** Kafka Connect's connector setting for exactly-once source delivery; the export requires it. */
    public static final String EXACTLY_ONCE_SUPPORT = "exactly.once.support";
    /** Kafka Connect's connector setting for where a source task's transactions end; the export uses {@code poll}. */
    public static final String TRANSACTION_BOUNDARY = "transaction.boundary";
    /**
     * Debezium's {@code poll.interval.ms} in the Kafka Connect export. The plugin's own change-event queue holds every
     * change until its batch is full or this interval is over, so there it is a wait added to each change, not the
     * idle wake-up {@code poll-interval} is for the embedded engine (docs/connector.md).
     */
    static final String CONNECT_POLL_INTERVAL_MS = "5";

    private final ConnectorProperties properties;

    public DebeziumSettings(ConnectorProperties properties) {
        this.properties = properties;
    }

    /** The configured tables, in order, without the heartbeat table. */
    public List<CapturedTable> dataTables() {
        return properties.getTables().stream().map(CapturedTable::parse).distinct().toList();
    }

    /** The heartbeat table, when heartbeats are enabled. */
    public Optional<CapturedTable> heartbeatTable() {
        return properties.getHeartbeat().isEnabled()
                ? Optional.of(CapturedTable.parse(properties.getHeartbeat().getTable()))
                : Optional.empty();
    }

    /** Every table the connector captures: the data tables and the heartbeat table. */
    public List<CapturedTable> capturedTables() {
        Set<CapturedTable> all = new LinkedHashSet<>(dataTables());
        heartbeatTable().ifPresent(all::add);
        return List.copyOf(all);
    }

    /** The change topic of every captured table. */
    public List<String> changeTopics() {
        return capturedTables().stream().map(t -> t.topic(properties.getTopicPrefix())).toList();
    }

    /** Topic holding the engine's binlog positions. */
    public String offsetsTopic() {
        return properties.getName() + ".offsets";
    }

    /** Topic holding the captured tables' DDL history. */
    public String schemaHistoryTopic() {
        return properties.getName() + ".schema-history";
    }

    /** Topic Debezium's own heartbeat records are addressed to. */
    public String debeziumHeartbeatTopic() {
        return HEARTBEAT_TOPIC_PREFIX + "." + properties.getTopicPrefix();
    }

    /**
     * Replication client id: the configured one, else one derived from the connector name (stable across restarts):
     * SHA-256 of the name mapped onto 100,000..4,294,967,295 (the server id is an unsigned 32-bit number; the low
     * ids are left to database servers), so two names collide with a chance of about one in four billion.
     * {@code String.hashCode} would give "Aa" and "BB" the same id.
     */
    public long serverId() {
        Long configured = properties.getDatabase().getServerId();
        return configured != null ? configured : derivedServerId(properties.getName());
    }

    static long derivedServerId(String name) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        long first32 = ByteBuffer.wrap(digest).getInt() & 0xFFFF_FFFFL;
        return 100_000L + first32 % (0xFFFF_FFFFL - 100_000L + 1);
    }

    /** This connector's row in the heartbeat table, when heartbeats are enabled. */
    public Optional<HeartbeatRow> heartbeatRow() {
        return heartbeatTable().map(table -> new HeartbeatRow(table, properties.getName(), dataTables()));
    }

    /** The Debezium connector class for the configured flavor. */
    public String connectorClass() {
        return properties.getDatabase().getFlavor() == Flavor.MYSQL ? MYSQL_CONNECTOR : MARIADB_CONNECTOR;
    }

    /**
     * The properties the Debezium connector of {@code flavor} (the one {@link #connectorClass()} names) declares,
     * with their validators: MariaDB and MySQL accept different values for some of them.
     */
    public static Field.Set declaredFields(Flavor flavor) {
        return flavor == Flavor.MYSQL ? MySqlConnectorConfig.ALL_FIELDS : MariaDbConnectorConfig.ALL_FIELDS;
    }

    /**
     * Connector properties shared by the embedded engine and Kafka Connect (no offset store, no
     * converters, the password as configured).
     */
    public Map<String, String> connectorProperties() {
        ConnectorProperties p = properties;
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", connectorClass());
        c.put("database.hostname", p.getDatabase().getHost());
        c.put("database.port", Integer.toString(p.getDatabase().getPort()));
        c.put("connect.keep.alive.interval.ms", Long.toString(Math.max(100, p.getDatabase().getKeepAliveInterval().toMillis())));
        c.put("database.user", p.getDatabase().getUser());
        c.put("database.password", p.getDatabase().getPassword());
        c.put("database.server.id", Long.toString(serverId()));
        c.put("topic.prefix", p.getTopicPrefix());
        c.put("database.include.list", capturedTables().stream()
                .map(t -> CapturedTable.escapeRegex(t.database())).distinct().collect(Collectors.joining(",")));
        c.put("table.include.list", capturedTables().stream()
                .map(CapturedTable::includeListPattern).collect(Collectors.joining(",")));
        if (!p.getColumns().getInclude().isEmpty()) {
            c.put("column.include.list", String.join(",", columnIncludeList()));
        }
        putColumnList(c, "column.exclude.list", p.getColumns().getExclude());
        putColumnList(c, "column.mask.with.8.chars", p.getColumns().getMask());
        c.put("snapshot.mode", p.getSnapshotMode());
        c.put("schema.history.internal", KAFKA_SCHEMA_HISTORY);
        c.put("schema.history.internal.kafka.bootstrap.servers", p.getKafka().getBootstrapServers());
        c.put("schema.history.internal.kafka.topic", schemaHistoryTopic());
        // Only the captured databases' DDL: keeps start-up fast on servers with many schemas.
        c.put("schema.history.internal.store.only.captured.databases.ddl", "true");
        // Debezium's schema-history producer and consumer read only these prefixed copies of the client settings.
        p.getKafka().clientProperties().forEach((k, v) -> {
            c.put("schema.history.internal.producer." + k, v);
            c.put("schema.history.internal.consumer." + k, v);
        });
        // The contract: per-table topics only (DDL lives in the schema-history topic).
        c.put("include.schema.changes", "false");
        c.put("tombstones.on.delete", "true");
        c.put("skipped.operations", "none");
        c.put("decimal.handling.mode", "string");
        if (p.getHeartbeat().isEnabled()) {
            // Debezium's own heartbeats keep the stored offset moving; the heartbeat row is written by
            // HeartbeatWriter on a timer, because the binlog connectors only run heartbeat.action.query
            // when the binlog moves (see connectConfig for Kafka Connect).
            c.put("heartbeat.interval.ms", Long.toString(p.getHeartbeat().getInterval().toMillis()));
            c.put("topic.heartbeat.prefix", HEARTBEAT_TOPIC_PREFIX);
        }
        c.put("poll.interval.ms", Long.toString(Math.max(1, p.getPollInterval().toMillis())));
        c.put("max.batch.size", Integer.toString(p.getMaxBatchSize()));
        c.put("max.queue.size", Integer.toString(Math.max(p.getMaxQueueSize(), p.getMaxBatchSize() + 1)));
        c.putAll(p.getDebezium());
        return c;
    }

    /** Properties for {@code DebeziumEngine.create(Connect.class).using(...)}. */
    public Properties engineProperties() {
        ConnectorProperties p = properties;
        Properties e = new Properties();
        e.put("name", p.getName());
        e.putAll(connectorProperties());
        // The offset store's own Kafka clients read these top-level settings.
        e.put("bootstrap.servers", p.getKafka().getBootstrapServers());
        p.getKafka().clientProperties().forEach(e::put);
        switch (p.getOffsets().getStore()) {
            case KAFKA -> {
                e.put("offset.storage", KAFKA_OFFSET_STORE);
                e.put("offset.storage.topic", offsetsTopic());
                e.put("offset.storage.partitions", "1");
                e.put("offset.storage.replication.factor", Integer.toString(p.getTopicReplicationFactor()));
            }
            case FILE -> {
                e.put("offset.storage", FILE_OFFSET_STORE);
                e.put("offset.storage.file.filename", p.getOffsets().getFile().toString());
            }
        }
        e.put("offset.flush.interval.ms", Long.toString(p.getOffsets().getFlushInterval().toMillis()));
        return e;
    }

    /**
     * The same connector as a Kafka Connect configuration, the body of {@code POST /connectors}.
     * The password is a {@code ${env:...}} reference resolved by the worker's
     * {@code EnvVarConfigProvider}, so the export never contains the secret.
     */
    public Map<String, Object> connectConfig() {
        Map<String, String> config = new LinkedHashMap<>(connectorProperties());
        config.put("database.password", "${env:" + PASSWORD_ENV_VARIABLE + "}");
        // The schema-history clients' Kafka secrets (sasl.jaas.config, ssl.*.password) become references too.
        config.replaceAll((key, value) -> key.startsWith("schema.history.internal.") && isSecret(key)
                ? "${env:" + kafkaSecretEnvVariable(key) + "}" : value);
        if (properties.getHeartbeat().isEnabled()) {
            // No HeartbeatWriter runs on a Connect worker: Debezium's action query is the closest equivalent
            // (it runs when the binlog moves, or on the server's replication heartbeat; docs/kafka-connect.md).
            // No continuity check runs there either: the epoch is chosen at export, so deploying a new export
            // (what an operator does after a gap) starts a new epoch.
            config.put("heartbeat.action.query", heartbeatRow().orElseThrow()
                    .literalUpsertStatement("connect-" + Epoch.next()));
        }
        // The same header the embedded connector sets on every record (docs/contract.md, "The connector header").
        config.put("transforms", "connectorHeader");
        config.put("transforms.connectorHeader.type", "org.apache.kafka.connect.transforms.InsertHeader");
        config.put("transforms.connectorHeader.header", ConnectorHeader.NAME);
        config.put("transforms.connectorHeader.value.literal", properties.getName());
        config.put("poll.interval.ms", CONNECT_POLL_INTERVAL_MS);
        config.put("tasks.max", "1");
        // Ordering on Connect (docs/kafka-connect.md, "Ordering"): each poll batch is one Kafka transaction, so a
        // heartbeat becomes visible to read-committed clients only together with every change before it. A worker
        // without exactly.once.source.support=enabled refuses the connector instead of running it unordered.
        config.put(EXACTLY_ONCE_SUPPORT, "required");
        config.put(TRANSACTION_BOUNDARY, "poll");
        config.put("key.converter", JSON_CONVERTER);
        config.put("key.converter.schemas.enable", "false");
        config.put("value.converter", JSON_CONVERTER);
        config.put("value.converter.schemas.enable", "false");
        config.put("topic.creation.default.partitions", Integer.toString(properties.getTopicPartitions()));
        config.put("topic.creation.default.replication.factor", Integer.toString(properties.getTopicReplicationFactor()));
        // as the embedded connector creates them: a compacted change topic would lose changes for its readers
        config.put("topic.creation.default.cleanup.policy", "delete");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", properties.getName());
        body.put("config", config);
        return body;
    }

    /**
     * The environment variable the exported Kafka Connect configuration reads a schema-history client secret from:
     * {@code CDC_CONNECTOR_KAFKA_} and the client property in upper case, e.g.
     * {@code CDC_CONNECTOR_KAFKA_SASL_JAAS_CONFIG} (producer and consumer share it).
     */
    public static String kafkaSecretEnvVariable(String key) {
        String clientKey = key.replaceFirst("^schema\\.history\\.internal\\.(producer|consumer)\\.", "");
        return "CDC_CONNECTOR_KAFKA_" + clientKey.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** Engine properties with secrets replaced, for logs. */
    public Map<String, String> maskedEngineProperties() {
        Map<String, String> masked = new TreeMap<>();
        engineProperties().forEach((k, v) -> masked.put(k.toString(), isSecret(k.toString()) ? "******" : v.toString()));
        return masked;
    }

    /** Whether a property name denotes a secret (password, sasl.jaas.config, keys). */
    public static boolean isSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("password") || k.contains("jaas") || k.contains("secret") || k.endsWith(".key")
                || k.contains("credentials");
    }

    /**
     * The column include list, per table: Debezium applies {@code column.include.list} to every captured table, so
     * a table the configured list does not mention would lose all its columns (and clients their keys). Each such
     * table, the heartbeat table included, gets a pattern keeping all its columns.
     */
    List<String> columnIncludeList() {
        List<String> include = properties.getColumns().getInclude();
        Set<CapturedTable> mentioned = new LinkedHashSet<>();
        List<String> patterns = new ArrayList<>();
        for (String column : include) {
            String[] parts = column.trim().split("\\.");
            mentioned.add(new CapturedTable(parts[0], parts[1]));
            patterns.add(CapturedTable.escapeRegex(column.trim()));
        }
        for (CapturedTable table : capturedTables()) {
            if (!mentioned.contains(table)) {
                patterns.add(table.includeListPattern() + "\\.[^.]+");
            }
        }
        return patterns;
    }

    private static void putColumnList(Map<String, String> config, String key, List<String> columns) {
        if (!columns.isEmpty()) {
            List<String> escaped = new ArrayList<>();
            columns.forEach(c -> escaped.add(CapturedTable.escapeRegex(c.trim())));
            config.put(key, String.join(",", escaped));
        }
    }
}
