package dev.cdccache.coupon.progress;

import dev.cdccache.coupon.catalog.CouponView;
import dev.cdccache.coupon.catalog.CouponCatalog;
import dev.cdccache.coupon.problem.ApiProblem;
import java.time.Clock;
import java.time.LocalDate;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The hot write path: issues a coupon to a user within the coupon's limit. The limit is enforced by
 * one conditional {@code UPDATE} on the progress row (never read-then-write), and the user coupon is
 * inserted in the same transaction, so concurrent issuers can neither exceed the limit nor leave a
 * counted issue without its user coupon (or the reverse).
 */
@Service
public class CouponIssuer {

    private final CouponCatalog catalog;
    private final CouponProgressRepository progress;
    private final Clock clock;

    public CouponIssuer(CouponCatalog catalog, CouponProgressRepository progress, Clock clock) {
        this.catalog = catalog;
        this.progress = progress;
        this.clock = clock;
    }

    /**
     * Issues coupon {@code couponId} to {@code userId}.
     *
     * @throws ApiProblem 404 for an unknown coupon, 409 when it is not issuable today, sold out, or the
     *                    user already holds it; nothing is written then
     */
    @Transactional
    public IssuedCoupon issue(long couponId, long userId) {
        // Metadata from the cache: the checks that matter for correctness (status, limit) are repeated
        // by the UPDATE against the rows themselves.
        CouponView coupon = catalog.findCoupon(couponId).orElseThrow(() -> ApiProblem.couponNotFound(couponId));
        LocalDate today = LocalDate.now(clock);
        if (!coupon.isIssuableOn(today)) {
            throw ApiProblem.conflict("Coupon not issuable", "coupon " + couponId + " is " + coupon.status()
                    + " and valid from " + coupon.validFrom() + " to " + coupon.validUntil()
                    + "; it cannot be issued on " + today);
        }
        boolean taken = progress.takeIssueSlot(couponId)
                // A coupon inserted without a progress row (plain SQL) gets one on its first issue.
                || (progress.createIfMissing(couponId) && progress.takeIssueSlot(couponId));
        if (!taken) {
            throw ApiProblem.conflict("Coupon sold out", "coupon " + couponId
                    + " has reached its issue limit or is no longer active");
        }
        long userCouponId;
        try {
            userCouponId = progress.insertUserCoupon(couponId, userId);
        } catch (DuplicateKeyException e) {
            // The exception rolls the transaction back, which returns the slot taken above.
            throw ApiProblem.conflict("Coupon already issued", "user " + userId + " already holds coupon " + couponId);
        }
        return new IssuedCoupon(userCouponId, couponId, userId);
    }
}
