package dev.cdccache.connector.bench;

import dev.cdccache.connector.publish.ChangeEventSerializer;
import dev.cdccache.contract.ConnectorHeader;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time and allocation per change record of the connector's serializer against Kafka's JsonConverter (what the
 * connector used before), for an UPDATE of a row of coupon-service's {@code coupon} table as Debezium's MariaDB
 * connector emits it with the connector's settings (DECIMAL as string, DATE as days, DATETIME(6) as
 * microseconds, the full source block). Both produce the same bytes (ChangeEventSerializerEquivalenceTest).
 *
 * <p>Run (docs/benchmarks.md): {@code java -cp ... org.openjdk.jmh.Main SerializerBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SerializerBenchmark {

    private static final String TOPIC = "cdc.coupon_db.coupon";

    private final ChangeEventSerializer serializer = new ChangeEventSerializer("coupons");
    private final JsonConverter keyConverter = new JsonConverter();
    private final JsonConverter valueConverter = new JsonConverter();
    private final Header header = new RecordHeader(ConnectorHeader.NAME, ConnectorHeader.value("coupons"));
    private final SourceRecord record = couponUpdate();

    public SerializerBenchmark() {
        keyConverter.configure(Map.of("schemas.enable", "false", "converter.type", "key"), true);
        valueConverter.configure(Map.of("schemas.enable", "false", "converter.type", "value"), false);
    }

    /** The connector's serializer. */
    @Benchmark
    public ProducerRecord<byte[], byte[]> streaming() {
        return serializer.toProducerRecord(record);
    }

    /** What the connector did before: JsonConverter for key and value. */
    @Benchmark
    public ProducerRecord<byte[], byte[]> jsonConverter() {
        byte[] key = keyConverter.fromConnectData(TOPIC, record.keySchema(), record.key());
        byte[] value = valueConverter.fromConnectData(TOPIC, record.valueSchema(), record.value());
        return new ProducerRecord<>(TOPIC, null, null, key, value, new RecordHeaders(new Header[] {header}));
    }

    static SourceRecord couponUpdate() {
        Schema key = SchemaBuilder.struct().name(TOPIC + ".Key").field("id", Schema.INT64_SCHEMA).build();
        Schema date = SchemaBuilder.int32().name("io.debezium.time.Date").version(1).build();
        Schema micros = SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1)
                .defaultValue(0L).build();
        Schema row = SchemaBuilder.struct().name(TOPIC + ".Value").optional()
                .field("id", Schema.INT64_SCHEMA)
                .field("code", Schema.STRING_SCHEMA)
                .field("place_id", Schema.INT64_SCHEMA)
                .field("name", Schema.STRING_SCHEMA)
                .field("discount_type", Schema.STRING_SCHEMA)
                .field("discount_value", Schema.STRING_SCHEMA)
                .field("minimum_price", Schema.STRING_SCHEMA)
                .field("valid_from", date)
                .field("valid_until", date)
                .field("status", Schema.STRING_SCHEMA)
                .field("issue_limit", Schema.INT32_SCHEMA)
                .field("updated_at", micros)
                .build();
        Schema source = SchemaBuilder.struct().name("io.debezium.connector.mariadb.Source")
                .field("version", Schema.STRING_SCHEMA).field("connector", Schema.STRING_SCHEMA)
                .field("name", Schema.STRING_SCHEMA).field("ts_ms", Schema.INT64_SCHEMA)
                .field("snapshot", SchemaBuilder.string().optional().name("io.debezium.data.Enum").version(1)
                        .parameter("allowed", "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental")
                        .defaultValue("false").build())
                .field("db", Schema.STRING_SCHEMA).field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
                .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA).field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
                .field("table", Schema.OPTIONAL_STRING_SCHEMA).field("server_id", Schema.INT64_SCHEMA)
                .field("gtid", Schema.OPTIONAL_STRING_SCHEMA).field("file", Schema.STRING_SCHEMA)
                .field("pos", Schema.INT64_SCHEMA).field("row", Schema.INT32_SCHEMA)
                .field("thread", Schema.OPTIONAL_INT64_SCHEMA).field("query", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        Schema envelope = SchemaBuilder.struct().name(TOPIC + ".Envelope").version(2)
                .field("before", row).field("after", row).field("source", source)
                .field("transaction", SchemaBuilder.struct().name("event.block").optional()
                        .field("id", Schema.STRING_SCHEMA).field("total_order", Schema.INT64_SCHEMA)
                        .field("data_collection_order", Schema.INT64_SCHEMA).build())
                .field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
                .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA).field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
                .build();
        Struct before = coupon(row, 12_345L, 0, 1_795_680_000_123_456L);
        Struct after = coupon(row, 12_345L, 17, 1_795_683_971_423_282L);
        Struct src = new Struct(source).put("version", "3.5.0.Final").put("connector", "mariadb").put("name", "cdc")
                .put("ts_ms", 1_795_683_971_000L).put("db", "coupon_db").put("ts_us", 1_795_683_971_000_000L)
                .put("ts_ns", 1_795_683_971_000_000_000L).put("table", "coupon").put("server_id", 1L)
                .put("gtid", "0-1-323").put("file", "mariadb-bin.000001").put("pos", 185_521L).put("row", 0);
        Struct value = new Struct(envelope).put("before", before).put("after", after).put("source", src).put("op", "u")
                .put("ts_ms", 1_795_683_971_431L).put("ts_us", 1_795_683_971_431_598L).put("ts_ns", 1_795_683_971_431_598_360L);
        return new SourceRecord(Map.of("server", "cdc"), Map.of("file", "mariadb-bin.000001", "pos", 185_189L), TOPIC, null,
                key, new Struct(key).put("id", 12_345L), envelope, value);
    }

    private static Struct coupon(Schema row, long id, int issueLimit, long updatedAt) {
        return new Struct(row).put("id", id).put("code", "CPN-0000012345").put("place_id", 346L)
                .put("name", "Winter sale coupon 12345 for regular customers").put("discount_type", "PERCENTAGE")
                .put("discount_value", "50.50").put("minimum_price", "10002.00").put("valid_from", 20_454)
                .put("valid_until", 20_818).put("status", "ACTIVE").put("issue_limit", issueLimit)
                .put("updated_at", updatedAt);
    }
}
