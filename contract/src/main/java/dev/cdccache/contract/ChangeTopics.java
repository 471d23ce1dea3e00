package dev.cdccache.contract;

/**
 * Topic naming (docs/contract.md, "Topics and keys"): the changes of table {@code <database>.<table>} go to topic
 * {@code <prefix>.<database>.<table>}, Debezium's default naming, so the same clients read the embedded connector's
 * topics and those of the same Debezium connector on Kafka Connect. The heartbeat table is captured like any
 * table, so its topic follows the same rule.
 */
public final class ChangeTopics {

    /** The topic prefix both sides use unless configured otherwise; the client's must equal the connector's. */
    public static final String DEFAULT_PREFIX = "cdc";

    private ChangeTopics() {
    }

    /** {@code <prefix>.<database>.<table>}. */
    public static String of(String prefix, String database, String table) {
        return prefix + "." + database + "." + table;
    }

    /** The topic of {@code qualifiedTable} ({@code database.table}): {@code <prefix>.<database>.<table>}. */
    public static String of(String prefix, String qualifiedTable) {
        return prefix + "." + qualifiedTable;
    }

    /** The topic of the default heartbeat table, {@code <prefix>.cdc_meta.heartbeat}. */
    public static String heartbeat(String prefix) {
        return of(prefix, HeartbeatTable.DEFAULT_NAME);
    }
}
