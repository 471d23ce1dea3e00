package dev.cdccache.coupon.caching;

import dev.cdccache.coupon.catalog.CouponAttribute;
import dev.cdccache.coupon.catalog.CouponStatus;
import dev.cdccache.coupon.catalog.CouponView;
import dev.cdccache.coupon.catalog.DiscountType;
import dev.cdccache.coupon.json.PreEncodedJson;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * A coupon as the {@code coupons} cache of mode {@code local} keeps it: the JSON of the API, encoded once when the
 * coupon was loaded, and only the fields the coupon rules read. Values many coupons have in common (discount type
 * and value, minimum price, validity dates, status, the attribute list) are canonical {@link JsonFragment}s shared
 * by all of them; what is the coupon's own (id, code, place, name, issue limit, {@code updatedAt}) is one byte
 * array of encoded JSON values. Serving it copies those bytes with the property names around them; nothing is
 * encoded per request.
 *
 * <p>The property names and their order are those of {@link dev.cdccache.coupon.catalog.Coupon}'s JSON;
 * {@code CompactCouponEncodingIT} proves the bytes equal to what Jackson writes for the same rows.
 */
final class CompactCoupon implements CouponView, PreEncodedJson {

    private static final byte[] ID = ascii("{\"id\":");
    private static final byte[] CODE = ascii(",\"code\":");
    private static final byte[] PLACE_ID = ascii(",\"placeId\":");
    private static final byte[] NAME = ascii(",\"name\":");
    private static final byte[] DISCOUNT_TYPE = ascii(",\"discountType\":");
    private static final byte[] DISCOUNT_VALUE = ascii(",\"discountValue\":");
    private static final byte[] MINIMUM_PRICE = ascii(",\"minimumPrice\":");
    private static final byte[] VALID_FROM = ascii(",\"validFrom\":");
    private static final byte[] VALID_UNTIL = ascii(",\"validUntil\":");
    private static final byte[] STATUS = ascii(",\"status\":");
    private static final byte[] ISSUE_LIMIT = ascii(",\"issueLimit\":");
    private static final byte[] UPDATED_AT = ascii(",\"updatedAt\":");
    private static final byte[] ATTRIBUTES = ascii(",\"attributes\":");
    private static final byte[] END = ascii("}");
    private static final int NAMES_LENGTH = ID.length + CODE.length + PLACE_ID.length + NAME.length
            + DISCOUNT_TYPE.length + DISCOUNT_VALUE.length + MINIMUM_PRICE.length + VALID_FROM.length
            + VALID_UNTIL.length + STATUS.length + ISSUE_LIMIT.length + UPDATED_AT.length + ATTRIBUTES.length
            + END.length;
    /** Longest {@link #own} the char offsets can address. */
    static final int MAX_OWN_LENGTH = Character.MAX_VALUE;

    /**
     * Boxed: the instance that keys this coupon in the {@code coupons} cache (see {@link CompactCouponEncoder}), shared
     * with the other caches keyed by coupon id through {@link #boxedId()}, so it costs no box of its own; and a
     * reference is 4 bytes narrower than a {@code long}.
     */
    private final Long id;
    private final long placeId;
    private final int issueLimit;
    private final JsonFragment<DiscountType> discountType;
    private final JsonFragment<BigDecimal> discountValue;
    private final JsonFragment<BigDecimal> minimumPrice;
    private final JsonFragment<LocalDate> validFrom;
    private final JsonFragment<LocalDate> validUntil;
    private final JsonFragment<CouponStatus> status;
    private final JsonFragment<List<CouponAttribute>> attributes;
    /** The encoded id, code, place id, name, issue limit and updatedAt, one after the other. */
    private final byte[] own;
    // Where each of the first five values in own ends (the last one ends with the array). Chars: 2 bytes each. The
    // object is 72 bytes: 12 header, a long, an int, 9 references of 4 bytes, 5 chars, 2 padding; one field more of
    // 4 bytes or wider (a long id, a kept jsonLength) would take it to 80.
    private final char idEnd;
    private final char codeEnd;
    private final char placeIdEnd;
    private final char nameEnd;
    private final char issueLimitEnd;

    CompactCoupon(Long id, long placeId, int issueLimit, JsonFragment<DiscountType> discountType,
            JsonFragment<BigDecimal> discountValue, JsonFragment<BigDecimal> minimumPrice,
            JsonFragment<LocalDate> validFrom, JsonFragment<LocalDate> validUntil, JsonFragment<CouponStatus> status,
            JsonFragment<List<CouponAttribute>> attributes, byte[] own, int[] ownEnds) {
        if (own.length > MAX_OWN_LENGTH || ownEnds.length != 5) {
            throw new IllegalArgumentException("own values of coupon " + id + ": " + own.length + " bytes, "
                    + ownEnds.length + " ends");
        }
        this.id = Objects.requireNonNull(id, "id");
        this.placeId = placeId;
        this.issueLimit = issueLimit;
        this.discountType = discountType;
        this.discountValue = discountValue;
        this.minimumPrice = minimumPrice;
        this.validFrom = validFrom;
        this.validUntil = validUntil;
        this.status = status;
        this.attributes = attributes;
        this.own = own;
        this.idEnd = (char) ownEnds[0];
        this.codeEnd = (char) ownEnds[1];
        this.placeIdEnd = (char) ownEnds[2];
        this.nameEnd = (char) ownEnds[3];
        this.issueLimitEnd = (char) ownEnds[4];
    }

    @Override
    public long id() {
        return id;
    }

    /** The instance this coupon was encoded with: the key it was loaded under, when the cache stored it. */
    @Override
    public Long boxedId() {
        return id;
    }

    /**
     * Decoded from the encoded JSON string on each call (only the by-code lookup asks), so the cache holds the
     * code once, encoded.
     */
    @Override
    public String code() {
        if (own[idEnd] != '"') {
            return null; // encoded as JSON null
        }
        int start = idEnd + 1;
        int end = codeEnd - 1;
        for (int i = start; i < end; i++) {
            if (own[i] == '\\') {
                return JsonMapper.shared().readValue(own, idEnd, codeEnd - idEnd, String.class);
            }
        }
        return new String(own, start, end - start, StandardCharsets.UTF_8);
    }

    @Override
    public long placeId() {
        return placeId;
    }

    @Override
    public DiscountType discountType() {
        return discountType.value();
    }

    @Override
    public BigDecimal discountValue() {
        return discountValue.value();
    }

    @Override
    public BigDecimal minimumPrice() {
        return minimumPrice.value();
    }

    @Override
    public LocalDate validFrom() {
        return validFrom.value();
    }

    @Override
    public LocalDate validUntil() {
        return validUntil.value();
    }

    @Override
    public CouponStatus status() {
        return status.value();
    }

    @Override
    public int issueLimit() {
        return issueLimit;
    }

    /** The attribute list, shared with every cached coupon that has the same one. */
    List<CouponAttribute> attributes() {
        return attributes.value();
    }

    /**
     * Summed on each call rather than kept (a few reads of arrays the serialisation copies next anyway): a field would
     * take the object past the next 8-byte boundary, 8 bytes more per cached coupon.
     */
    @Override
    public int jsonLength() {
        return NAMES_LENGTH + own.length + discountType.json().length + discountValue.json().length
                + minimumPrice.json().length + validFrom.json().length + validUntil.json().length
                + status.json().length + attributes.json().length;
    }

    @Override
    public void writeJson(OutputStream out) throws IOException {
        out.write(ID);
        out.write(own, 0, idEnd);
        out.write(CODE);
        out.write(own, idEnd, codeEnd - idEnd);
        out.write(PLACE_ID);
        out.write(own, codeEnd, placeIdEnd - codeEnd);
        out.write(NAME);
        out.write(own, placeIdEnd, nameEnd - placeIdEnd);
        out.write(DISCOUNT_TYPE);
        out.write(discountType.json());
        out.write(DISCOUNT_VALUE);
        out.write(discountValue.json());
        out.write(MINIMUM_PRICE);
        out.write(minimumPrice.json());
        out.write(VALID_FROM);
        out.write(validFrom.json());
        out.write(VALID_UNTIL);
        out.write(validUntil.json());
        out.write(STATUS);
        out.write(status.json());
        out.write(ISSUE_LIMIT);
        out.write(own, nameEnd, issueLimitEnd - nameEnd);
        out.write(UPDATED_AT);
        out.write(own, issueLimitEnd, own.length - issueLimitEnd);
        out.write(ATTRIBUTES);
        out.write(attributes.json());
        out.write(END);
    }

    @Override
    public void copyJson(byte[] target, int offset) {
        try {
            writeJson(new ArrayOutput(target, offset));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // an array does not fail
        }
    }

    @Override
    public String toString() {
        byte[] json = new byte[jsonLength()];
        copyJson(json, 0);
        return "CompactCoupon" + new String(json, StandardCharsets.UTF_8);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** Writes into a byte array the caller has sized. */
    private static final class ArrayOutput extends OutputStream {
        private final byte[] target;
        private int position;

        ArrayOutput(byte[] target, int position) {
            this.target = target;
            this.position = position;
        }

        @Override
        public void write(int b) {
            target[position++] = (byte) b;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            System.arraycopy(bytes, offset, target, position, length);
            position += length;
        }
    }
}
