package dev.cdccache.connector.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/** What the serializer publishes when its writer fails or writes other bytes than JsonConverter. */
class ChangeEventSerializerSafetyNetTest {

    private static final Schema KEY = SchemaBuilder.struct().name("k").field("id", Schema.INT64_SCHEMA).build();
    private static final Schema VALUE = SchemaBuilder.struct().name("v").field("id", Schema.INT64_SCHEMA)
            .field("name", Schema.STRING_SCHEMA).build();

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static SourceRecord record(long id) {
        return new SourceRecord(Map.of(), Map.of(), "cdc.db.t", null, KEY, new Struct(KEY).put("id", id), VALUE,
                new Struct(VALUE).put("id", id).put("name", "n" + id));
    }

    private double count(String meter) {
        return registry.get(meter).counter().count();
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void aSchemaWhoseFirstRecordTheWriterGetsWrongIsSerializedByTheConverterFromThenOn() {
        AtomicInteger writes = new AtomicInteger();
        ChangeEventSerializer serializer = new ChangeEventSerializer("test", registry, (schema, value) -> {
            writes.incrementAndGet();
            return "{\"wrong\":true}".getBytes(StandardCharsets.UTF_8);
        });

        for (long id = 1; id <= 3; id++) {
            ProducerRecord<byte[], byte[]> produced = serializer.toProducerRecord(record(id));
            assertThat(text(produced.key())).isEqualTo("{\"id\":" + id + "}");
            assertThat(text(produced.value())).isEqualTo("{\"id\":" + id + ",\"name\":\"n" + id + "\"}");
        }

        assertThat(writes.get()).as("the writer is not asked again for a schema it got wrong").isEqualTo(2);
        assertThat(count(ChangeEventSerializer.MISMATCHES_METER)).as("key and value schema").isEqualTo(2);
        assertThat(count(ChangeEventSerializer.FALLBACKS_METER)).isEqualTo(6);
    }

    @Test
    void theWritersBytesArePublishedOnceTheFirstRecordOfTheSchemaMatched() {
        AtomicInteger writes = new AtomicInteger();
        StreamingJsonWriter real = new StreamingJsonWriter();
        ChangeEventSerializer serializer = new ChangeEventSerializer("test", registry, (schema, value) -> {
            writes.incrementAndGet();
            return real.write(schema, value);
        });

        for (long id = 1; id <= 3; id++) {
            assertThat(text(serializer.toProducerRecord(record(id)).value()))
                    .isEqualTo("{\"id\":" + id + ",\"name\":\"n" + id + "\"}");
        }

        assertThat(writes.get()).isEqualTo(6);
        assertThat(count(ChangeEventSerializer.MISMATCHES_METER)).isZero();
        assertThat(count(ChangeEventSerializer.FALLBACKS_METER)).isZero();
    }

    @Test
    void aWriterFailureFallsBackToTheConverterForThatRecordOnly() {
        AtomicInteger writes = new AtomicInteger();
        StreamingJsonWriter real = new StreamingJsonWriter();
        ChangeEventSerializer serializer = new ChangeEventSerializer("test", registry, (schema, value) -> {
            if (writes.incrementAndGet() == 2) {
                throw new StreamingJsonWriter.UnsupportedValueException("test");
            }
            return real.write(schema, value);
        });

        assertThat(text(serializer.toProducerRecord(record(1)).value())).isEqualTo("{\"id\":1,\"name\":\"n1\"}");
        assertThat(text(serializer.toProducerRecord(record(2)).value())).isEqualTo("{\"id\":2,\"name\":\"n2\"}");

        assertThat(writes.get()).isEqualTo(4);
        assertThat(count(ChangeEventSerializer.FALLBACKS_METER)).isEqualTo(1);
    }
}
