package dev.cdccache.coupon.json;

import java.io.IOException;
import java.io.OutputStream;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * A value that carries its JSON already encoded (UTF-8), so that serving it copies bytes instead of serialising
 * fields. As a response body it is written straight to the response ({@link PreEncodedJsonHttpMessageConverter});
 * inside another value serialised by Jackson its bytes are copied into Jackson's output as a raw value.
 *
 * <p>The bytes must be exactly what the application's {@code JsonMapper} would write for the value.
 */
@JsonSerialize(using = PreEncodedJsonSerializer.class)
public interface PreEncodedJson {

    /** Length of the encoded JSON in bytes. */
    int jsonLength();

    /** Writes the encoded JSON to {@code out}. */
    void writeJson(OutputStream out) throws IOException;

    /**
     * Copies the encoded JSON into {@code target} from {@code offset}; the caller has made sure that
     * {@link #jsonLength()} bytes fit.
     */
    void copyJson(byte[] target, int offset);
}
