package dev.cdccache.connector.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * The streaming serializer writes the bytes Kafka's JsonConverter (schemas disabled) writes, for generated Structs
 * of every Connect type and the logical types Debezium and Kafka Connect use; JsonConverter is the oracle.
 */
class ChangeEventSerializerEquivalenceTest {

    private static final String TOPIC = "cdc.db.table";
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ChangeEventSerializer serializer = new ChangeEventSerializer("test", registry);
    private final JsonConverter keyOracle = converter(true);
    private final JsonConverter valueOracle = converter(false);

    private static JsonConverter converter(boolean key) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "false", "converter.type", key ? "key" : "value"), key);
        return c;
    }

    private double fallbacks() {
        return registry.get(ChangeEventSerializer.FALLBACKS_METER).counter().count();
    }

    /** Serializes with both and asserts equal bytes (or both failing); false if the converter refused the record. */
    private boolean assertSameBytes(Schema keySchema, Object key, Schema valueSchema, Object value) {
        SourceRecord record = new SourceRecord(Map.of(), Map.of(), TOPIC, null, keySchema, key, valueSchema, value);
        byte[] expectedKey;
        byte[] expectedValue;
        try {
            expectedKey = key == null ? null : keyOracle.fromConnectData(TOPIC, keySchema, key);
            expectedValue = value == null ? null : valueOracle.fromConnectData(TOPIC, valueSchema, value);
        } catch (RuntimeException oracleFailed) {
            // whatever the converter refuses must still fail (the batch is not published), not be written otherwise
            assertThatThrownBy(() -> serializer.toProducerRecord(record)).isInstanceOf(oracleFailed.getClass());
            return false;
        }
        ProducerRecord<byte[], byte[]> produced = serializer.toProducerRecord(record);
        assertThat(text(produced.key())).isEqualTo(text(expectedKey));
        assertThat(produced.key()).isEqualTo(expectedKey);
        assertThat(text(produced.value())).isEqualTo(text(expectedValue));
        assertThat(produced.value()).isEqualTo(expectedValue);
        return true;
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void generatedStructsOfEveryTypeSerializeToTheConvertersBytes() {
        int converted = 0;
        for (int seed = 0; seed < 3000; seed++) {
            Random random = new Random(seed);
            Schema keySchema = randomStructSchema(random, 0, "Key");
            Schema valueSchema = randomStructSchema(random, 0, "Envelope");
            Object key = randomValue(random, keySchema, 0);
            Object value = random.nextInt(10) == 0 ? null : randomValue(random, valueSchema, 0); // tombstones too
            double fallbacksBefore = fallbacks();
            try {
                if (assertSameBytes(keySchema, key, valueSchema, value)) {
                    converted++;
                    assertThat(fallbacks()).as("written without the converter").isEqualTo(fallbacksBefore);
                }
            } catch (AssertionError e) {
                throw new AssertionError("generated record " + seed + ": " + e.getMessage(), e);
            }
        }
        assertThat(converted).as("records the converter accepts (the rest must fail alike)").isGreaterThan(2500);
    }

    @Test
    void debeziumEnvelopeWithSourceBlockAndDefaultsSerializesToTheConvertersBytes() {
        Schema source = SchemaBuilder.struct().name("io.debezium.connector.mariadb.Source")
                .field("version", Schema.STRING_SCHEMA)
                .field("connector", Schema.STRING_SCHEMA)
                .field("ts_ms", Schema.INT64_SCHEMA)
                .field("snapshot", SchemaBuilder.string().optional().name("io.debezium.data.Enum").version(1)
                        .parameter("allowed", "true,first,last,false").defaultValue("false").build())
                .field("db", Schema.STRING_SCHEMA)
                .field("gtid", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        Schema row = SchemaBuilder.struct().name("cdc.db.coupon.Value").optional()
                .field("id", Schema.INT64_SCHEMA)
                .field("discount_value", Schema.STRING_SCHEMA)
                .field("valid_from", SchemaBuilder.int32().name("io.debezium.time.Date").version(1).build())
                .field("updated_at", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).build())
                .field("created", SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").version(1).optional().build())
                .field("status", SchemaBuilder.string().optional().defaultValue("ACTIVE").build())
                .field("price", Decimal.builder(2).optional().build())
                .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
                .build();
        Schema envelope = SchemaBuilder.struct().name("cdc.db.coupon.Envelope")
                .field("before", row).field("after", row).field("source", source)
                .field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();
        Struct after = new Struct(row).put("id", 7L).put("discount_value", "10.50").put("valid_from", 19_000)
                .put("updated_at", 1_700_000_000_123_456L).put("created", "2026-11-26T08:00:00Z")
                .put("price", new BigDecimal("-12.34")).put("blob", new byte[] {0, 1, (byte) 0xff});
        Struct value = new Struct(envelope).put("after", after).put("op", "c").put("ts_ms", 1L)
                .put("source", new Struct(source).put("version", "3.5.0.Final").put("connector", "mariadb")
                        .put("ts_ms", 1_700_000_000_000L).put("db", "db"));
        Schema keySchema = SchemaBuilder.struct().name("cdc.db.coupon.Key").field("id", Schema.INT64_SCHEMA).build();

        assertSameBytes(keySchema, new Struct(keySchema).put("id", 7L), envelope, value);
        assertSameBytes(keySchema, new Struct(keySchema).put("id", 7L), null, null); // tombstone
        assertThat(fallbacks()).isZero();
    }

    @Test
    void awkwardPrimitivesSerializeToTheConvertersBytes() {
        List<Object[]> cases = List.of(
                new Object[] {Schema.FLOAT64_SCHEMA, Double.NaN}, new Object[] {Schema.FLOAT64_SCHEMA, Double.NEGATIVE_INFINITY},
                new Object[] {Schema.FLOAT64_SCHEMA, -0.0}, new Object[] {Schema.FLOAT64_SCHEMA, 1e300},
                new Object[] {Schema.FLOAT64_SCHEMA, Double.MIN_VALUE}, new Object[] {Schema.FLOAT32_SCHEMA, Float.NaN},
                new Object[] {Schema.FLOAT32_SCHEMA, 0.1f}, new Object[] {Schema.FLOAT32_SCHEMA, Float.MAX_VALUE},
                new Object[] {Schema.INT64_SCHEMA, Long.MIN_VALUE}, new Object[] {Schema.INT8_SCHEMA, Byte.MIN_VALUE},
                new Object[] {Schema.INT16_SCHEMA, Short.MAX_VALUE},
                new Object[] {Schema.STRING_SCHEMA, "quote \" backslash \\ tab \t nl \n cr \r nul \0 bell \u0007 del \u007f"},
                new Object[] {Schema.STRING_SCHEMA, "ünïcödé € 漢字 emoji 😀 line sep \u2028 para \u2029 bom \ufeff"},
                new Object[] {Schema.STRING_SCHEMA, "lone surrogate \ud800 here"},
                new Object[] {Schema.STRING_SCHEMA, "</script>&<>'"},
                new Object[] {Schema.STRING_SCHEMA, "x".repeat(100_000)},
                new Object[] {Schema.BYTES_SCHEMA, new byte[0]},
                new Object[] {Schema.BYTES_SCHEMA, ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}, 1, 2)},
                new Object[] {Decimal.schema(0), new BigDecimal("123456789012345678901234567890")},
                new Object[] {Decimal.schema(3), new BigDecimal("-0.001")},
                new Object[] {Decimal.schema(3), new BigDecimal("1.5")}, // wrong scale: the converter refuses it
                new Object[] {Date.SCHEMA, new java.util.Date(86_400_000L * 19_000)},
                new Object[] {Date.SCHEMA, new java.util.Date(1)}, // not midnight: the converter refuses it
                new Object[] {Time.SCHEMA, new java.util.Date(3_600_000L)},
                new Object[] {Timestamp.SCHEMA, new java.util.Date(-1L)},
                new Object[] {Schema.INT32_SCHEMA, "not an int"}); // wrong Java type: the converter refuses it
        for (Object[] c : cases) {
            Schema schema = (Schema) c[0];
            Schema struct = SchemaBuilder.struct().field("f", schema).build();
            Struct value;
            try {
                value = new Struct(struct).put("f", c[1]);
            } catch (DataException refusedByStruct) {
                value = null; // only as a top-level value below: a Struct does not take it
            }
            if (value != null) {
                assertSameBytes(null, null, struct, value);
            }
            assertSameBytes(null, null, schema, c[1]); // as a top-level value, too
        }
    }

    @Test
    void schemalessValuesFallBackToTheConverterAndAreCounted() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("a", 1);
        value.put("b", List.of("x", true));

        assertSameBytes(null, null, null, value);

        assertThat(fallbacks()).isEqualTo(1);
    }

    @Test
    void aStructWithAnotherSchemaThanItsFieldFailsAsWithTheConverter() {
        Schema inner = SchemaBuilder.struct().name("inner").field("a", Schema.INT32_SCHEMA).build();
        Schema other = SchemaBuilder.struct().name("other").field("a", Schema.INT32_SCHEMA).build();
        Schema outer = SchemaBuilder.struct().field("s", inner).build();
        Struct value = new Struct(outer);
        value.put("s", new Struct(inner).put("a", 1)); // valid now; swapped below past put's validation
        Struct mismatched = new Struct(outer) {
            @Override
            public Object get(org.apache.kafka.connect.data.Field field) {
                return new Struct(other).put("a", 1);
            }

            @Override
            public Object getWithoutDefault(String fieldName) {
                return new Struct(other).put("a", 1);
            }
        };
        SourceRecord record = new SourceRecord(Map.of(), Map.of(), TOPIC, null, null, null, outer, mismatched);

        assertThatThrownBy(() -> serializer.toProducerRecord(record)).isInstanceOf(DataException.class);
        assertSameBytes(null, null, outer, value);
    }

    // ---- generators

    private static final List<Function<Random, Schema>> LEAF_SCHEMAS = List.of(
            r -> Schema.INT8_SCHEMA, r -> Schema.INT16_SCHEMA, r -> Schema.INT32_SCHEMA, r -> Schema.INT64_SCHEMA,
            r -> Schema.FLOAT32_SCHEMA, r -> Schema.FLOAT64_SCHEMA, r -> Schema.BOOLEAN_SCHEMA, r -> Schema.STRING_SCHEMA,
            r -> Schema.BYTES_SCHEMA,
            r -> Decimal.schema(r.nextInt(8)), r -> Date.SCHEMA, r -> Time.SCHEMA, r -> Timestamp.SCHEMA,
            // Debezium's semantic types: named, written by their physical type
            r -> SchemaBuilder.int32().name("io.debezium.time.Date").version(1).build(),
            r -> SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).build(),
            r -> SchemaBuilder.int64().name("io.debezium.time.Timestamp").version(1).build(),
            r -> SchemaBuilder.int64().name("io.debezium.time.MicroTime").version(1).build(),
            r -> SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").version(1).build(),
            r -> SchemaBuilder.string().name("io.debezium.data.Json").version(1).build(),
            r -> SchemaBuilder.string().name("io.debezium.data.Enum").parameter("allowed", "A,B").build(),
            r -> SchemaBuilder.int16().name("io.debezium.data.Year").build(),
            r -> SchemaBuilder.bytes().name("io.debezium.data.Bits").parameter("length", "8").build(),
            r -> SchemaBuilder.struct().name("io.debezium.data.VariableScaleDecimal")
                    .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA).build());

    private Schema randomSchema(Random r, int depth) {
        int pick = r.nextInt(depth >= 2 ? LEAF_SCHEMAS.size() : LEAF_SCHEMAS.size() + 4);
        SchemaBuilder builder;
        if (pick < LEAF_SCHEMAS.size()) {
            Schema leaf = LEAF_SCHEMAS.get(pick).apply(r);
            builder = copy(leaf);
        } else if (pick == LEAF_SCHEMAS.size()) {
            builder = SchemaBuilder.array(randomSchema(r, depth + 1));
        } else if (pick == LEAF_SCHEMAS.size() + 1) {
            builder = SchemaBuilder.map(Schema.STRING_SCHEMA, randomSchema(r, depth + 1));
        } else if (pick == LEAF_SCHEMAS.size() + 2) {
            builder = SchemaBuilder.map(randomSchema(r, 2), randomSchema(r, depth + 1));
        } else {
            return randomStructSchema(r, depth + 1, "Nested" + depth);
        }
        if (r.nextInt(3) == 0) {
            builder.optional();
        }
        if (r.nextInt(5) == 0 && builder.type() != Schema.Type.STRUCT) {
            builder.defaultValue(randomValue(r, builder.build(), 3, false));
        }
        return builder.build();
    }

    private static SchemaBuilder copy(Schema s) {
        SchemaBuilder b = new SchemaBuilder(s.type());
        if (s.name() != null) {
            b.name(s.name());
        }
        if (s.version() != null) {
            b.version(s.version());
        }
        if (s.parameters() != null) {
            b.parameters(s.parameters());
        }
        if (s.type() == Schema.Type.STRUCT) {
            s.fields().forEach(f -> b.field(f.name(), f.schema()));
        }
        return b;
    }

    private Schema randomStructSchema(Random r, int depth, String name) {
        SchemaBuilder b = SchemaBuilder.struct().name("cdc.db.t." + name);
        int fields = 1 + r.nextInt(depth == 0 ? 14 : 5);
        for (int i = 0; i < fields; i++) {
            b.field(randomName(r, i), randomSchema(r, depth));
        }
        if (depth > 0 && r.nextBoolean()) {
            b.optional();
        }
        return b.build();
    }

    private static String randomName(Random r, int i) {
        String[] names = {"id", "before", "after", "source", "op", "ts_ms", "naïve", "quo\"te", "back\\slash", "tab\t", "漢"};
        return names[r.nextInt(names.length)] + "_" + i;
    }

    private Object randomValue(Random r, Schema schema, int depth) {
        return randomValue(r, schema, depth, true);
    }

    private Object randomValue(Random r, Schema schema, int depth, boolean mayBeNull) {
        if (mayBeNull && (schema.isOptional() || schema.defaultValue() != null) && r.nextInt(4) == 0) {
            return null;
        }
        if (schema.name() != null) {
            switch (schema.name()) {
                case Decimal.LOGICAL_NAME:
                    return new BigDecimal(new BigInteger(1 + r.nextInt(100), r).multiply(BigInteger.valueOf(r.nextBoolean() ? 1 : -1)),
                            Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD)));
                case Date.LOGICAL_NAME:
                    return new java.util.Date(86_400_000L * (r.nextInt(80_000) - 40_000));
                case Time.LOGICAL_NAME:
                    return new java.util.Date(r.nextInt(86_400_000));
                case Timestamp.LOGICAL_NAME:
                    return new java.util.Date(r.nextLong() % 10_000_000_000_000L);
                default:
                    break;
            }
        }
        switch (schema.type()) {
            case INT8: return (byte) r.nextInt();
            case INT16: return (short) r.nextInt();
            case INT32: return r.nextInt();
            case INT64: return r.nextBoolean() ? r.nextLong() : (long) r.nextInt(1000);
            case FLOAT32: return r.nextInt(10) == 0 ? Float.NaN : (float) (r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20));
            case FLOAT64: return r.nextInt(10) == 0 ? Double.POSITIVE_INFINITY : r.nextGaussian() * Math.pow(10, r.nextInt(600) - 300);
            case BOOLEAN: return r.nextBoolean();
            case STRING: return randomString(r);
            case BYTES: {
                byte[] bytes = new byte[r.nextInt(40)];
                r.nextBytes(bytes);
                return r.nextInt(4) == 0 ? ByteBuffer.wrap(bytes) : bytes;
            }
            case ARRAY: {
                List<Object> list = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    list.add(randomValue(r, schema.valueSchema(), depth + 1, schema.valueSchema().isOptional()));
                }
                return list;
            }
            case MAP: {
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    Object k = randomValue(r, schema.keySchema(), depth + 1, false);
                    map.put(k, randomValue(r, schema.valueSchema(), depth + 1, schema.valueSchema().isOptional()));
                }
                return map;
            }
            case STRUCT: {
                Struct struct = new Struct(schema);
                for (org.apache.kafka.connect.data.Field f : schema.fields()) {
                    Object v = randomValue(r, f.schema(), depth + 1);
                    if (v != null) { // a required field with a default left unset: the default is written
                        struct.put(f, v);
                    }
                }
                return struct;
            }
            default: throw new IllegalArgumentException(schema.type().toString());
        }
    }

    private static String randomString(Random r) {
        StringBuilder s = new StringBuilder();
        for (int i = r.nextInt(30); i > 0; i--) {
            switch (r.nextInt(6)) {
                case 0 -> s.append((char) r.nextInt(0x20)); // control characters
                case 1 -> s.append("\"\\/");
                case 2 -> s.append((char) (0x80 + r.nextInt(0x780))); // two-byte UTF-8
                case 3 -> s.append((char) (0x800 + r.nextInt(0xd000))); // three-byte UTF-8
                case 4 -> s.appendCodePoint(0x10000 + r.nextInt(0x1000)); // surrogate pairs
                default -> s.append((char) (0x20 + r.nextInt(0x5f)));
            }
        }
        return s.toString();
    }
}
