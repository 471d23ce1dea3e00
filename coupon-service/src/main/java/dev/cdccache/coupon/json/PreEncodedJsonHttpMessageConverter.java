package dev.cdccache.coupon.json;

import java.io.IOException;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.AbstractHttpMessageConverter;
import org.springframework.http.converter.HttpMessageNotReadableException;

/**
 * Writes a {@link PreEncodedJson} response body as its bytes, with its length ({@code Content-Length}, where
 * Jackson's converter streams a large body chunked): no serialiser runs. Registered before Jackson's converter,
 * for {@code application/json} only; never reads.
 */
public class PreEncodedJsonHttpMessageConverter extends AbstractHttpMessageConverter<PreEncodedJson> {

    public PreEncodedJsonHttpMessageConverter() {
        // No default charset: it would be added to the content type, which Jackson's converter leaves as is.
        super(MediaType.APPLICATION_JSON);
    }

    @Override
    protected boolean supports(Class<?> clazz) {
        return PreEncodedJson.class.isAssignableFrom(clazz);
    }

    @Override
    protected boolean canRead(MediaType mediaType) {
        return false;
    }

    @Override
    protected PreEncodedJson readInternal(Class<? extends PreEncodedJson> clazz, HttpInputMessage inputMessage) {
        throw new HttpMessageNotReadableException("pre-encoded JSON is written only", inputMessage);
    }

    @Override
    protected Long getContentLength(PreEncodedJson body, MediaType contentType) {
        return (long) body.jsonLength();
    }

    @Override
    protected void writeInternal(PreEncodedJson body, HttpOutputMessage outputMessage) throws IOException {
        body.writeJson(outputMessage.getBody());
    }
}
