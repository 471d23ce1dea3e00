package dev.cdccache.connector.startup;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.config.DebeziumSettings;
import io.debezium.config.Configuration;
import io.debezium.config.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decides which Debezium properties an operator may override under {@code cdc.connector.debezium.*}. Overrides
 * are applied after the settings the event contract depends on, so one of them could drop changes, send them
 * elsewhere or rewrite their keys, while the connector's heartbeats go on proving every captured table fresh:
 * caches would serve stale data and say they are fresh.
 *
 * <p>An allow-list, not a deny-list: Debezium has hundreds of properties and adds more with every release, and
 * most of them change what the events contain (value and key representations, filters, topic naming, failure
 * handling). A property is accepted only when it tunes how fast, how robustly or how a snapshot reads; everything
 * else is refused at start-up with the reason, and the few operators who need more can ask for a typed setting.
 *
 * <p>Column masking, hashing and truncation ({@code column.mask.*}, {@code column.truncate.to.*}) are allowed here:
 * on a column no cache key is built from they are the privacy feature they are meant to be. On a key column they
 * would make clients evict the masked value instead of the real key, so {@link KeyColumnCheck} refuses them
 * there, against the key columns the database reports.
 */
public final class DebeziumOverrideCheck {

    /** Exact names of properties that only tune speed, timeouts, retries, metrics or snapshot reading. */
    static final Set<String> TUNING = Set.of(
            "max.queue.size.in.bytes",
            "connect.timeout.ms",
            "errors.max.retries", "errors.retry.delay.initial.ms", "errors.retry.delay.max.ms",
            "retriable.restart.connector.wait.ms",
            "query.fetch.size", "min.row.count.to.stream.results", "streaming.delay.ms",
            "snapshot.fetch.size", "snapshot.max.threads", "snapshot.lock.timeout.ms", "snapshot.delay.ms",
            "snapshot.locking.mode",
            "schema.history.internal.kafka.recovery.poll.interval.ms", "schema.history.internal.kafka.recovery.attempts",
            "schema.history.internal.kafka.query.timeout.ms", "schema.history.internal.kafka.create.timeout.ms",
            "custom.metric.tags");

    /** Prefixes of tuning properties: TLS to the database, and the JDBC driver's connection properties. */
    static final List<String> TUNING_PREFIXES = List.of("database.ssl.", "driver.");

    /** {@code column.mask.with.N.chars}, {@code column.mask.hash[.v2].ALG.with.salt.SALT}, {@code column.truncate.to.N.chars}. */
    static final Pattern COLUMN_TRANSFORM = Pattern.compile(
            "column\\.(mask\\.with\\.\\d+\\.chars|mask\\.hash\\.(v2\\.)?[^.]+\\.with\\.salt\\..+|truncate\\.to\\.\\d+\\.chars)");

    private static final String FILTERS = "set cdc.connector.tables instead: the heartbeat row lists the captured tables and"
            + " clients trust a table because it is on that list, so a filter here would drop its changes while the"
            + " heartbeats vouch for it";
    private static final String DROPS_EVENTS = "warn or skip drops an event that fails to process while the heartbeats go"
            + " on proving its table fresh";
    private static final String KEY_FORMAT = "it changes how key values are written, so the keys clients derive from an"
            + " event would no longer match their cached entries";
    private static final String REWRITES = "it rewrites, renames or drops records after Debezium built them; the event"
            + " contract is Debezium's standard envelope on one topic per table";

    /** The reason a property is refused, for those an operator is likely to try; prefixes end with a dot. */
    private static final Map<String, String> REASONS = new LinkedHashMap<>();

    static {
        because("the event contract publishes every operation, TRUNCATE included; a skipped operation is a change no"
                + " cache hears of", "skipped.operations");
        because("the event contract follows every delete with a tombstone", "tombstones.on.delete");
        because("DDL belongs in the schema history topic; schema-change records on the change topics are not change"
                + " events clients can map", "include.schema.changes");
        because("DECIMAL values are published as strings; " + KEY_FORMAT, "decimal.handling.mode");
        because(KEY_FORMAT, "time.precision.mode", "bigint.unsigned.handling.mode", "binary.handling.mode");
        because("it changes the record key; the key is the primary key, which keeps all changes of a row in one"
                + " partition, in order", "message.key.columns");
        because("set cdc.connector.topic-prefix instead: the topics the connector creates and clients subscribe to"
                + " derive from it", "topic.prefix");
        because("clients find a table's changes on <topic-prefix>.<database>.<table>", "topic.naming.strategy");
        because(DROPS_EVENTS, "event.processing.failure.handling.mode", "event.deserialization.failure.handling.mode",
                "inconsistent.schema.handling.mode");
        because("a skipped DDL leaves Debezium with a wrong table schema, and later events with wrong columns",
                "schema.history.internal.skip.unparseable.ddl");
        because("it drops events", "skip.messages.without.change");
        because("it drops the transactions of the servers it names or leaves out", "gtid.source.includes", "gtid.source.excludes");
        because(FILTERS, "table.include.list", "table.exclude.list", "table.whitelist", "table.blacklist",
                "database.include.list", "database.exclude.list");
        because("set cdc.connector.columns.include instead, which keeps the columns of the tables it does not name (the"
                + " heartbeat table's among them)", "column.include.list");
        because("set cdc.connector.columns.exclude instead", "column.exclude.list");
        because(REWRITES, "converters", "converters.", "transforms", "transforms.", "predicates", "predicates.",
                "post.processors", "post.processors.");
        because("it changes the envelope clients parse", "provide.transaction.metadata");
        because("the event contract is JSON without schemas", "key.converter", "key.converter.", "value.converter",
                "value.converter.");
        because("the Kafka Connect export requires exactly-once delivery with one transaction per poll, which keeps"
                + " a heartbeat from becoming visible before the changes committed before it", "exactly.once.support",
                "transaction.boundary", "transaction.boundary.");
        because("the producer's settings belong on the worker (or in cdc.connector.kafka.properties); a connector-level"
                + " override could turn off the transactions that keep heartbeats behind the changes before them",
                "producer.override.");
        because("set cdc.connector.snapshot-mode instead", "snapshot.mode");
        because("set cdc.connector.poll-interval instead", "poll.interval.ms");
        because("set cdc.connector.max-batch-size instead", "max.batch.size");
        because("set cdc.connector.max-queue-size instead", "max.queue.size");
        because("set cdc.connector.heartbeat.interval instead", "heartbeat.interval.ms");
        because("set cdc.connector.database.keep-alive-interval instead", "connect.keep.alive.interval.ms");
        because("set cdc.connector.database.flavor instead", "connector.class");
        because("set the cdc.connector.database.* settings instead", "database.");
        because("the connector derives the schema history from cdc.connector.name and cdc.connector.kafka.*; Kafka client"
                + " settings belong in cdc.connector.kafka.properties", "schema.history.internal", "schema.history.internal.");
    }

    private static void because(String reason, String... properties) {
        for (String property : properties) {
            REASONS.put(property, reason);
        }
    }

    private DebeziumOverrideCheck() {
    }

    /** Whether a property is a column mask, hash or truncation, allowed only on columns no key is built from. */
    public static boolean isColumnTransform(String property) {
        return COLUMN_TRANSFORM.matcher(property).matches();
    }

    /**
     * Refuses every override the allow-list does not accept, then every accepted value that the Debezium connector of
     * {@code flavor} would refuse when its task starts.
     *
     * @param overrides the {@code cdc.connector.debezium.*} properties, without the prefix
     * @param flavor the server the connector reads: MariaDB and MySQL accept different values for some properties
     * @throws StartupCheckException naming each refused setting and why
     */
    public static void verify(Map<String, String> overrides, ConnectorProperties.Flavor flavor) {
        List<String> refused = new ArrayList<>();
        overrides.keySet().stream().sorted().forEach(property -> {
            if (!isAllowed(property)) {
                refused.add("cdc.connector.debezium." + property + " (" + reason(property) + ")");
            }
        });
        if (!refused.isEmpty()) {
            throw new StartupCheckException("Debezium overrides that would break the event contract: "
                    + String.join("; ", refused) + ".",
                    "Remove them. cdc.connector.debezium.* accepts only properties that tune speed, timeouts, retries or"
                            + " snapshots (" + String.join(", ", TUNING.stream().sorted().toList()) + ", database.ssl.*,"
                            + " driver.*) and column masking, hashing or truncation of columns no cache key is built from"
                            + " (docs/connector.md, \"Settings\").");
        }
        verifyValues(overrides, flavor);
    }

    /**
     * Checks each accepted override's value with the validator Debezium's connector declares for it, which
     * would otherwise run only when the engine starts its task: a value such as {@code 64MB} for a number of bytes
     * then stopped the engine at run time (exit code 3, which supervisors restart on) instead of refusing to start.
     * Properties Debezium does not declare (JDBC driver properties, column transforms) are not checked here.
     */
    static void verifyValues(Map<String, String> overrides, ConnectorProperties.Flavor flavor) {
        // each flavor's own fields: e.g. database.ssl.mode is verify-full for MariaDB, verify_identity for MySQL
        Field.Set fields = DebeziumSettings.declaredFields(flavor);
        Configuration values = Configuration.from(overrides);
        List<String> problems = new ArrayList<>();
        overrides.keySet().stream().sorted().forEach(property -> {
            Field field = fields.fieldWithName(property.trim());
            if (field != null) {
                field.validate(values, (f, value, problem) -> problems.add(
                        "cdc.connector.debezium." + f.name() + "=" + value + " (" + problem + ")"));
            }
        });
        if (!problems.isEmpty()) {
            throw new StartupCheckException("Debezium overrides with values Debezium refuses: " + String.join("; ", problems)
                    + ".", "Correct them to values Debezium accepts; numbers of bytes and milliseconds are plain whole numbers"
                    + " (67108864, not 64MB).");
        }
    }

    static boolean isAllowed(String property) {
        String p = property.trim();
        return TUNING.contains(p) || TUNING_PREFIXES.stream().anyMatch(p::startsWith) || isColumnTransform(p);
    }

    static String reason(String property) {
        String p = property.trim().toLowerCase(Locale.ROOT);
        String exact = REASONS.get(p);
        if (exact != null) {
            return exact;
        }
        String longestPrefix = null;
        for (String prefix : REASONS.keySet()) {
            if (prefix.endsWith(".") && p.startsWith(prefix) && (longestPrefix == null || prefix.length() > longestPrefix.length())) {
                longestPrefix = prefix;
            }
        }
        if (longestPrefix != null) {
            return REASONS.get(longestPrefix);
        }
        return "not a setting that only tunes speed, timeouts, retries or snapshots; a setting that changes which changes"
                + " are published, where, or how their keys and values are written would let caches stay stale while"
                + " the heartbeats prove them fresh";
    }
}
