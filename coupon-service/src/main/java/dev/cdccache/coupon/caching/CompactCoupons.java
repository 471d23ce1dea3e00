package dev.cdccache.coupon.caching;

import dev.cdccache.coupon.json.PreEncodedJson;
import java.io.IOException;
import java.io.OutputStream;
import java.util.AbstractList;
import java.util.Collection;
import java.util.RandomAccess;

/**
 * An unmodifiable list of {@link CompactCoupon}s that is also its own JSON array: as a response body it is
 * written as {@code [}, the coupons' bytes separated by commas, {@code ]}.
 */
final class CompactCoupons extends AbstractList<CompactCoupon> implements PreEncodedJson, RandomAccess {

    private final CompactCoupon[] coupons;
    private final int jsonLength;

    CompactCoupons(Collection<CompactCoupon> coupons) {
        this.coupons = coupons.toArray(CompactCoupon[]::new);
        int length = 2 + Math.max(0, this.coupons.length - 1);
        for (CompactCoupon coupon : this.coupons) {
            length += coupon.jsonLength();
        }
        this.jsonLength = length;
    }

    @Override
    public CompactCoupon get(int index) {
        return coupons[index];
    }

    @Override
    public int size() {
        return coupons.length;
    }

    @Override
    public int jsonLength() {
        return jsonLength;
    }

    @Override
    public void writeJson(OutputStream out) throws IOException {
        out.write('[');
        for (int i = 0; i < coupons.length; i++) {
            if (i > 0) {
                out.write(',');
            }
            coupons[i].writeJson(out);
        }
        out.write(']');
    }

    @Override
    public void copyJson(byte[] target, int offset) {
        int position = offset;
        target[position++] = '[';
        for (int i = 0; i < coupons.length; i++) {
            if (i > 0) {
                target[position++] = ',';
            }
            coupons[i].copyJson(target, position);
            position += coupons[i].jsonLength();
        }
        target[position] = ']';
    }
}
