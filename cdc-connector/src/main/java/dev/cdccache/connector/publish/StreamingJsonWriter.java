package dev.cdccache.connector.publish;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * Writes Kafka Connect data (a {@link Schema} and its value) as JSON with a {@link JsonGenerator} straight
 * into a reused buffer, producing the bytes Kafka's {@code JsonConverter} produces with
 * {@code schemas.enable=false} and its other settings at their defaults ({@code decimal.format=BASE64},
 * {@code replace.null.with.default=true}), without building a JSON tree per record.
 *
 * <p>The rules it follows are those of the converter, case by case: a null value takes the schema's default when
 * there is one, else is {@code null}; the logical types Decimal (base64 of the unscaled value's two's-complement
 * bytes), Date (days), Time (milliseconds of the day) and Timestamp (epoch milliseconds) are recognised by schema
 * name, every other name (Debezium's {@code io.debezium.time.*} types included) by its physical type; bytes are
 * base64 (of a {@code ByteBuffer}'s whole backing array, as the converter does); a map with string keys is an
 * object, any other map an array of {@code [key, value]} pairs.
 *
 * <p>It refuses what it does not reproduce exactly rather than guess: values without a schema, a struct whose
 * schema differs from its field's, a value of the wrong Java type, a null in a required field without default.
 * Those throw {@link UnsupportedValueException} (or the exception the Connect data classes throw) and the caller
 * falls back to {@code JsonConverter} for that record.
 *
 * <p>Not thread-safe: one instance per publishing thread.
 */
final class StreamingJsonWriter {

    /** Thrown for data this writer does not reproduce byte for byte; the caller uses JsonConverter instead. */
    static final class UnsupportedValueException extends RuntimeException {
        UnsupportedValueException(String message) {
            super(message, null, false, false); // on the fallback path only: no stack trace to fill
        }
    }

    // The defaults of a plain ObjectMapper's factory, which is what JsonConverter's serializer writes with.
    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    private final Output out = new Output(1024);
    private JsonGenerator generator;

    /**
     * The JSON bytes of one value; {@code null} only for a null value without schema (as the converter).
     *
     * @throws RuntimeException for data not written exactly as JsonConverter would; nothing of it stays buffered
     */
    byte[] write(Schema schema, Object value) {
        if (schema == null && value == null) {
            return null;
        }
        out.reset();
        try {
            JsonGenerator g = generator();
            writeValue(g, schema, value);
            g.flush();
            return out.toByteArray();
        } catch (IOException e) {
            discardGenerator();
            throw new UncheckedIOException(e); // cannot happen writing to memory, but must not leave a half value behind
        } catch (RuntimeException e) {
            discardGenerator(); // its state is mid-value: a fresh one for the next record
            throw e;
        }
    }

    private JsonGenerator generator() throws IOException {
        if (generator == null) {
            generator = FACTORY.createGenerator(out, JsonEncoding.UTF8);
            // One generator writes every record as a root value; the default separator (a space) between them
            // would end up at the start of every record after the first.
            generator.setRootValueSeparator(null);
        }
        return generator;
    }

    private void discardGenerator() {
        if (generator != null) {
            try {
                generator.close();
            } catch (IOException | RuntimeException ignored) {
                // closing a generator over memory; its content is thrown away anyway
            }
            generator = null;
        }
        out.reset();
    }

    private static void writeValue(JsonGenerator g, Schema schema, Object value) throws IOException {
        if (schema == null) {
            // schemaless data: JsonConverter infers types from Java classes; Debezium always sends schemas
            throw new UnsupportedValueException("value without schema");
        }
        if (value == null) {
            Object defaultValue = schema.defaultValue();
            if (defaultValue != null) {
                writeValue(g, schema, defaultValue); // replace.null.with.default=true, the converter's default
                return;
            }
            if (!schema.isOptional()) {
                throw new UnsupportedValueException("null in a required field without default");
            }
            g.writeNull();
            return;
        }
        String name = schema.name();
        if (name != null && writeLogical(g, schema, name, value)) {
            return;
        }
        switch (schema.type()) {
            case INT8 -> g.writeNumber((Byte) value);
            case INT16 -> g.writeNumber((Short) value);
            case INT32 -> g.writeNumber((Integer) value);
            case INT64 -> g.writeNumber((Long) value);
            case FLOAT32 -> g.writeNumber((Float) value);
            case FLOAT64 -> g.writeNumber((Double) value);
            case BOOLEAN -> g.writeBoolean((Boolean) value);
            case STRING -> g.writeString(((CharSequence) value).toString());
            case BYTES -> writeBytes(g, value);
            case ARRAY -> writeArray(g, schema, (Collection<?>) value);
            case MAP -> writeMap(g, schema, (Map<?, ?>) value);
            case STRUCT -> writeStruct(g, schema, (Struct) value);
            default -> throw new UnsupportedValueException("schema type " + schema.type());
        }
    }

    /** The converter's logical types, chosen by name alone as the converter does; false for any other name. */
    private static boolean writeLogical(JsonGenerator g, Schema schema, String name, Object value) throws IOException {
        switch (name) {
            case Decimal.LOGICAL_NAME -> {
                if (!(value instanceof BigDecimal decimal)) {
                    throw new UnsupportedValueException("Decimal value of " + value.getClass());
                }
                byte[] unscaled = Decimal.fromLogical(schema, decimal); // checks the scale as the converter does
                g.writeBinary(unscaled, 0, unscaled.length);
                return true;
            }
            case Date.LOGICAL_NAME -> {
                g.writeNumber(Date.fromLogical(schema, asDate(value)));
                return true;
            }
            case Time.LOGICAL_NAME -> {
                g.writeNumber(Time.fromLogical(schema, asDate(value)));
                return true;
            }
            case Timestamp.LOGICAL_NAME -> {
                g.writeNumber(Timestamp.fromLogical(schema, asDate(value)));
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    private static boolean isConverterLogicalName(String name) {
        return Decimal.LOGICAL_NAME.equals(name) || Date.LOGICAL_NAME.equals(name) || Time.LOGICAL_NAME.equals(name)
                || Timestamp.LOGICAL_NAME.equals(name);
    }

    private static java.util.Date asDate(Object value) {
        if (value instanceof java.util.Date date) {
            return date;
        }
        throw new UnsupportedValueException("date/time value of " + value.getClass());
    }

    private static void writeBytes(JsonGenerator g, Object value) throws IOException {
        byte[] bytes;
        if (value instanceof byte[] array) {
            bytes = array;
        } else if (value instanceof ByteBuffer buffer) {
            bytes = buffer.array(); // the whole backing array regardless of position and limit, as the converter
        } else {
            throw new UnsupportedValueException("bytes value of " + value.getClass());
        }
        g.writeBinary(bytes, 0, bytes.length);
    }

    private static void writeArray(JsonGenerator g, Schema schema, Collection<?> values) throws IOException {
        Schema element = schema.valueSchema();
        g.writeStartArray();
        for (Object v : values) {
            writeValue(g, element, v);
        }
        g.writeEndArray();
    }

    private static void writeMap(JsonGenerator g, Schema schema, Map<?, ?> map) throws IOException {
        Schema keySchema = schema.keySchema();
        Schema valueSchema = schema.valueSchema();
        if (keySchema.type() == Schema.Type.STRING) {
            g.writeStartObject();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                // Only String keys (distinct in a map, so no two collapse into one object entry as they could in
                // the converter's object node); a null key (written as "null" or as the default) is left to it, and
                // so is a key schema named like one of the converter's logical types.
                if (!(entry.getKey() instanceof String key) || isConverterLogicalName(keySchema.name())) {
                    throw new UnsupportedValueException("map key that is not a string");
                }
                g.writeFieldName(key);
                writeValue(g, valueSchema, entry.getValue());
            }
            g.writeEndObject();
        } else {
            g.writeStartArray();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                g.writeStartArray();
                writeValue(g, keySchema, entry.getKey());
                writeValue(g, valueSchema, entry.getValue());
                g.writeEndArray();
            }
            g.writeEndArray();
        }
    }

    private static void writeStruct(JsonGenerator g, Schema schema, Struct struct) throws IOException {
        Schema own = struct.schema();
        if (own != schema && !own.equals(schema)) {
            throw new UnsupportedValueException("struct schema differs from its field's schema");
        }
        g.writeStartObject();
        for (Field field : schema.fields()) {
            g.writeFieldName(field.name());
            // by index, not by name (the converter looks each field up by name); a null becomes the field's default
            // here or in writeValue, the same either way
            writeValue(g, field.schema(), struct.get(field));
        }
        g.writeEndObject();
    }

    /** A byte buffer that is reused for every record: only the returned copy is allocated per record. */
    private static final class Output extends OutputStream {
        private byte[] buf;
        private int count;

        Output(int initialCapacity) {
            buf = new byte[initialCapacity];
        }

        @Override
        public void write(int b) {
            ensure(count + 1);
            buf[count++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(count + len);
            System.arraycopy(b, off, buf, count, len);
            count += len;
        }

        private void ensure(int capacity) {
            if (capacity > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(capacity, buf.length * 2));
            }
        }

        void reset() {
            count = 0;
        }

        byte[] toByteArray() {
            return Arrays.copyOf(buf, count);
        }
    }
}
