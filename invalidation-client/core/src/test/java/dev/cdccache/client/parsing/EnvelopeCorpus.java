package dev.cdccache.client.parsing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Generates change-event values as JSON text, written by hand so that field order, duplicated names, odd types and
 * escapes are under the test's control: the envelopes of every operation (the coupon table's twelve columns and
 * their Debezium encodings, the heartbeat row), with the MariaDB connector's {@code source} block and a
 * {@code transaction} block, in shuffled field order, with or without embedded schema, transaction boundary
 * records, plus deviations a misbehaving producer could send. Deterministic for a given {@link Random}.
 */
final class EnvelopeCorpus {

    /**
     * The coupon table of the coupon service (its V1 migration), as the connector encodes its columns with
     * {@code decimal.handling.mode=string}: DECIMAL as a string, DATE as days since the epoch, DATETIME(6) as
     * microseconds since the epoch.
     */
    static final List<String> COUPON_COLUMNS = List.of("id", "code", "place_id", "name", "discount_type",
            "discount_value", "minimum_price", "valid_from", "valid_until", "status", "issue_limit", "updated_at");
    /** The columns the coupon service's caches derive keys from. */
    static final java.util.Set<String> COUPON_KEY_COLUMNS = java.util.Set.of("id", "code", "place_id");

    private final Random random;

    EnvelopeCorpus(Random random) {
        this.random = random;
    }

    /** One coupon update as the MariaDB connector publishes it (fixed values: the benchmark's input). */
    static String couponUpdate() {
        return "{\"before\":" + couponRow("10.00", 1772360101123456L) + ",\"after\":"
                + couponRow("12.50", 1772360130041211L) + ",\"source\":{\"version\":\"3.5.0.Final\","
                + "\"connector\":\"mariadb\",\"name\":\"cdc\",\"ts_ms\":1772360130000,\"snapshot\":\"false\","
                + "\"db\":\"coupon\",\"sequence\":null,\"ts_us\":1772360130000000,\"ts_ns\":1772360130000000000,"
                + "\"table\":\"coupon\",\"server_id\":1,\"gtid\":\"0-1-48213\",\"file\":\"mariadb-bin.000003\","
                + "\"pos\":912345,\"row\":0,\"thread\":17,\"query\":null},\"transaction\":null,\"op\":\"u\","
                + "\"ts_ms\":1772360130041,\"ts_us\":1772360130041211,\"ts_ns\":1772360130041211000}";
    }

    private static String couponRow(String discount, long updatedAtMicros) {
        return "{\"id\":4711,\"code\":\"SPRING-4711\",\"place_id\":17,\"name\":\"Spring campaign: 12.5% off over 50\","
                + "\"discount_type\":\"PERCENTAGE\",\"discount_value\":\"" + discount + "\",\"minimum_price\":\"50.00\","
                + "\"valid_from\":20513,\"valid_until\":20604,\"status\":\"ACTIVE\",\"issue_limit\":1000,"
                + "\"updated_at\":" + updatedAtMicros + "}";
    }

    /** A generated envelope; most are well formed, some deviate in one or more fields. */
    String next() {
        if (random.nextInt(30) == 0) {
            return transactionMarker();
        }
        List<String> fields = new ArrayList<>();
        String op = pick("c", "u", "d", "r", "t", "m");
        boolean heartbeat = random.nextInt(8) == 0;
        fields.add(field("op", rarely() ? oddValue() : quote(rarely() ? pick("x", "", "uu", "U") : op)));
        if (!rarely()) {
            fields.add(field("before", image(op, true, heartbeat)));
        }
        if (!rarely()) {
            fields.add(field("after", image(op, false, heartbeat)));
        }
        if (!rarely()) {
            fields.add(field("source", rarely() ? oddValue() : source()));
        }
        if (!rarely()) {
            fields.add(field("ts_ms", rarely() ? oddNumber() : Long.toString(1_772_360_130_000L + random.nextInt(100_000))));
        }
        if (random.nextBoolean()) {
            fields.add(field("ts_us", "1772360130041211"));
            fields.add(field("ts_ns", "1772360130041211000"));
        }
        if (random.nextBoolean()) {
            fields.add(field("transaction", random.nextBoolean() ? "null"
                    : "{\"id\":\"0-1-" + random.nextInt(100_000) + "\",\"total_order\":" + random.nextInt(10)
                            + ",\"data_collection_order\":" + random.nextInt(10) + "}"));
        }
        if (random.nextInt(6) == 0) {
            fields.add(field("truncated_columns", truncatedColumns()));
        }
        if (random.nextInt(8) == 0) {
            fields.add(field("coalesced", coalesced()));
        }
        if (rarely()) {
            fields.add(field(pick("somethingNew", "payload", "schema", "\\u006fp"), oddValue()));
        }
        if (rarely()) {
            // A duplicated name: the last occurrence is the one a tree keeps.
            String again = pick("op", "before", "after", "source", "ts_ms", "truncated_columns", "coalesced");
            fields.add(field(again, again.equals("op") ? quote(pick("c", "u", "x")) : oddValue()));
        }
        Collections.shuffle(fields, random);
        String envelope = "{" + String.join(",", fields) + "}";
        if (random.nextInt(5) == 0) {
            return withSchema(envelope);
        }
        return envelope;
    }

    /** The envelope as JsonConverter writes it with schemas enabled, parts in either order, sometimes deviating. */
    private String withSchema(String envelope) {
        String schema = field("schema", rarely() ? "null"
                : "{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\","
                        + "\"optional\":false,\"field\":\"id\"}],\"optional\":true,\"field\":\"before\"}],"
                        + "\"optional\":false,\"name\":\"cdc.coupon.coupon.Envelope\",\"version\":2}");
        String payload = field("payload", rarely() ? oddValue() : envelope);
        List<String> parts = new ArrayList<>();
        if (!rarely()) {
            parts.add(schema);
        }
        parts.add(payload);
        if (rarely()) {
            parts.add(field("op", quote("d"))); // an op beside the payload: only one of the two levels counts
        }
        Collections.shuffle(parts, random);
        return "{" + String.join(",", parts) + "}";
    }

    private String image(String op, boolean before, boolean heartbeat) {
        boolean present = before ? op.equals("u") || op.equals("d") : op.equals("c") || op.equals("u") || op.equals("r");
        if (rarely()) {
            return oddValue();
        }
        if (!present && !rarely()) {
            return "null";
        }
        return heartbeat ? heartbeatRow() : couponRow();
    }

    private String couponRow() {
        List<String> columns = new ArrayList<>();
        for (String column : COUPON_COLUMNS) {
            if (rarely()) {
                continue; // a column the row lacks
            }
            columns.add(field(column, rarely() ? columnValue() : couponValue(column)));
        }
        if (rarely()) {
            columns.add(field(pick("id", "code", "extra", "c\\u00f6de", "\\\"quoted\\\""), columnValue()));
        }
        Collections.shuffle(columns, random);
        return "{" + String.join(",", columns) + "}";
    }

    private String couponValue(String column) {
        return switch (column) {
            case "id", "place_id", "issue_limit" -> Long.toString(random.nextInt(3) == 0
                    ? random.nextLong() : random.nextInt(1_000_000));
            case "code" -> quote("C-" + random.nextInt(100_000));
            case "discount_value", "minimum_price" -> quote(random.nextInt(1000) + "." + String.format("%02d", random.nextInt(100)));
            case "discount_type" -> pick("\"FIXED_AMOUNT\"", "\"PERCENTAGE\"");
            case "status" -> pick("\"ACTIVE\"", "\"PAUSED\"", "\"ENDED\"");
            case "valid_from", "valid_until" -> Integer.toString(20_000 + random.nextInt(1000)); // days since epoch
            case "updated_at" -> Long.toString(1_772_000_000_000_000L + random.nextInt(1_000_000_000)); // micros
            default -> pick(quote("Spring campaign"), "\"caf\\u00e9 \\ud83d\\ude00 \\\"quoted\\\" \\n\"",
                    "\"" + "x".repeat(random.nextInt(3000)) + "\"");
        };
    }

    /**
     * A transaction boundary as Debezium writes it with {@code provide.transaction.metadata} (which the connector
     * refuses, but a misrouted topic could still carry): no {@code op}, so not an envelope.
     */
    private String transactionMarker() {
        String id = quote("0-1-" + random.nextInt(100_000));
        return random.nextBoolean()
                ? "{\"status\":\"BEGIN\",\"id\":" + id + ",\"ts_ms\":1772360130000,\"event_count\":null,"
                        + "\"data_collections\":null}"
                : "{\"status\":\"END\",\"id\":" + id + ",\"ts_ms\":1772360130000,\"event_count\":3,"
                        + "\"data_collections\":[{\"data_collection\":\"coupon.coupon\",\"event_count\":3}]}";
    }

    private String heartbeatRow() {
        List<String> columns = new ArrayList<>();
        columns.add(field("id", random.nextBoolean() ? quote("shop-connector") : "1"));
        columns.add(field("ts", pick("1772360130041211", "1772360130041", "\"2026-03-01T10:15:30.041211Z\"", "null")));
        if (random.nextBoolean()) {
            columns.add(field("epoch", quote("e" + random.nextInt(1000))));
            columns.add(field("tables", quote("shop.item,shop.coupon")));
        }
        Collections.shuffle(columns, random);
        return "{" + String.join(",", columns) + "}";
    }

    /** Any column value a row may carry: every JSON type, big and odd numbers, escapes, nested JSON. */
    private String columnValue() {
        return pick("0", "-1", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
                "9223372036854775808", "-9223372036854775809", "123456789012345678901234567890", "1.5", "-0.0",
                "1e3", "1E-7", "1.0e400", "12345678901234567890.123456789", "0.1", "true", "false", "null",
                "\"42\"", "\"42.00\"", "\" 7 \"", "\"\"", "\"\\u0041\\u00e9\\u4e2d\\ud83d\\ude00\"", "\"a\\/b\\\\c\\t\"",
                "{\"nested\":{\"deeper\":[1,2,{\"x\":null}]},\"n\":1}", "[]", "{}", "[1,\"two\",3.0,[4]]",
                "\"{\\\"json\\\":\\\"in a string\\\"}\"");
    }

    private String source() {
        List<String> fields = new ArrayList<>(List.of(
                field("version", quote("3.5.0.Final")), field("connector", quote("mariadb")), field("name", quote("cdc")),
                field("snapshot", pick("\"false\"", "\"true\"", "\"last\"")), field("sequence", "null"),
                field("ts_us", "1772360130000000"), field("ts_ns", "1772360130000000000"),
                field("server_id", "1"), field("file", quote("mariadb-bin.000003")),
                field("pos", Integer.toString(random.nextInt(1 << 30))), field("row", "0"), field("thread", "17"),
                field("query", "null")));
        if (!rarely()) {
            fields.add(field("db", rarely() ? oddValue() : quote("coupon")));
        }
        if (!rarely()) {
            fields.add(field("table", rarely() ? oddValue() : pick("\"coupon\"", "null")));
        }
        if (!rarely()) {
            fields.add(field("ts_ms", rarely() ? oddNumber() : "1772360130000"));
        }
        if (!rarely()) {
            fields.add(field("gtid", rarely() ? oddValue() : pick("\"0-1-" + random.nextInt(100_000) + "\"", "null")));
        }
        if (rarely()) {
            fields.add(field(pick("db", "table", "ts_ms", "gtid"), oddValue()));
        }
        Collections.shuffle(fields, random);
        return "{" + String.join(",", fields) + "}";
    }

    /** The marker of a table-wide eviction, sometimes partial or of another type. */
    private String coalesced() {
        return pick("{\"transaction\":\"0-1-77\",\"eviction\":\"e-1\",\"rows_published\":10000,\"partitions\":3}",
                "{\"eviction\":\"e-2\"}", "{\"transaction\":7,\"eviction\":[\"x\"]}", "{}", "null", "[1]", "\"x\"",
                "{\"transaction\":\"a\",\"transaction\":\"b\",\"nested\":{\"eviction\":\"no\"}}");
    }

    private String truncatedColumns() {
        return pick("null", "[]", "[\"description\"]", "[\"code\",\"description\"]", "[\"id\",7]", "[null]",
                "[[\"nested\"]]", "\"description\"", "{\"description\":true}", "42");
    }

    /** A value of a type the field does not have. */
    private String oddValue() {
        return pick("null", "42", "\"text\"", "[1,2]", "{\"a\":{\"b\":[]}}", "true", "1.5", "[]", "{}");
    }

    private String oddNumber() {
        return pick("-5", "0", "1180591620717411303424", "1.7e12", "\"1772360130000\"", "null", "9223372036854775807",
                "-9223372036854775808", "true");
    }

    private boolean rarely() {
        return random.nextInt(12) == 0;
    }

    private String pick(String... values) {
        return values[random.nextInt(values.length)];
    }

    private static String field(String name, String value) {
        return quote(name) + ":" + value;
    }

    /** Quotes text that needs no escaping (the generator writes its escapes itself). */
    private static String quote(String text) {
        return "\"" + text + "\"";
    }
}
