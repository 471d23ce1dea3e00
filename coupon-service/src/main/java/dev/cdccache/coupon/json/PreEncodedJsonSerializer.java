package dev.cdccache.coupon.json;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.SerializableString;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;

/**
 * Jackson's serializer of a {@link PreEncodedJson} inside another value (e.g. a coupon in a list entry that also
 * has counts): its bytes are copied into the generator's buffer as a raw value, nothing is re-encoded.
 */
public class PreEncodedJsonSerializer extends ValueSerializer<PreEncodedJson> {

    @Override
    public void serialize(PreEncodedJson value, JsonGenerator gen, SerializationContext context) {
        gen.writeRawValue(new RawJson(value));
    }

    /**
     * The raw value as Jackson's generators take it. A byte generator (HTTP responses, {@code writeValueAsBytes})
     * asks it to append itself to the generator's buffer, and only when it does not fit for a copy; a character
     * generator ({@code writeValueAsString}) gets the decoded text. Raw values are never quoted.
     */
    private record RawJson(PreEncodedJson value) implements SerializableString {

        @Override
        public int appendUnquotedUTF8(byte[] buffer, int offset) {
            int length = value.jsonLength();
            if (length > buffer.length - offset) {
                return -1;
            }
            value.copyJson(buffer, offset);
            return length;
        }

        @Override
        public byte[] asUnquotedUTF8() {
            byte[] bytes = new byte[value.jsonLength()];
            value.copyJson(bytes, 0);
            return bytes;
        }

        @Override
        public int writeUnquotedUTF8(OutputStream out) throws IOException {
            value.writeJson(out);
            return value.jsonLength();
        }

        @Override
        public int putUnquotedUTF8(ByteBuffer buffer) {
            int length = value.jsonLength();
            if (length > buffer.remaining()) {
                return -1;
            }
            buffer.put(asUnquotedUTF8());
            return length;
        }

        @Override
        public String getValue() {
            return new String(asUnquotedUTF8(), StandardCharsets.UTF_8);
        }

        @Override
        public int charLength() {
            return getValue().length();
        }

        @Override
        public int appendUnquoted(char[] buffer, int offset) {
            String text = getValue();
            if (text.length() > buffer.length - offset) {
                return -1;
            }
            text.getChars(0, text.length(), buffer, offset);
            return text.length();
        }

        @Override
        public char[] asQuotedChars() {
            throw quoted();
        }

        @Override
        public byte[] asQuotedUTF8() {
            throw quoted();
        }

        @Override
        public int appendQuotedUTF8(byte[] buffer, int offset) {
            throw quoted();
        }

        @Override
        public int appendQuoted(char[] buffer, int offset) {
            throw quoted();
        }

        @Override
        public int writeQuotedUTF8(OutputStream out) {
            throw quoted();
        }

        @Override
        public int putQuotedUTF8(ByteBuffer buffer) {
            throw quoted();
        }

        private static UnsupportedOperationException quoted() {
            return new UnsupportedOperationException("a raw JSON value is never quoted");
        }
    }
}
