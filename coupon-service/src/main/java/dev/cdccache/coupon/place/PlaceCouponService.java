package dev.cdccache.coupon.place;

import dev.cdccache.coupon.catalog.CouponView;
import dev.cdccache.coupon.catalog.CouponCatalog;
import dev.cdccache.coupon.problem.ApiProblem;
import dev.cdccache.coupon.progress.CouponProgress;
import dev.cdccache.coupon.progress.ProgressCounts;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Service;

/**
 * The place coupon-progress endpoint and the reservation lookup: a place's coupons from the catalog (cached per
 * place and per coupon) joined with progress counts ({@link ProgressCounts}: cached per coupon in mode local,
 * else one query).
 */
@Service
public class PlaceCouponService {

    private final CouponCatalog catalog;
    private final ProgressCounts progress;

    public PlaceCouponService(CouponCatalog catalog, ProgressCounts progress) {
        this.catalog = catalog;
        this.progress = progress;
    }

    /** All coupons of the place with their counts, by coupon id; 404 for an unknown place. */
    public List<CouponWithProgress> couponProgresses(long placeId) {
        List<? extends CouponView> coupons = placeCoupons(placeId);
        Map<Long, CouponProgress> counts = progress.findByCouponIds(coupons.stream().map(CouponView::boxedId).toList());
        return coupons.stream().map(coupon -> {
            CouponProgress count = counts.get(coupon.id());
            return new CouponWithProgress(coupon, count.issuedCount(), count.usedCount(), remaining(coupon, count));
        }).toList();
    }

    /**
     * Coupons of the place that can be applied to a stay on {@code date} at {@code price} and can still
     * be issued, best discount first; 404 for an unknown place.
     */
    public List<AvailableCoupon> availableCoupons(long placeId, BigDecimal price, LocalDate date) {
        List<? extends CouponView> usable = placeCoupons(placeId).stream().filter(coupon -> coupon.isUsableFor(date, price)).toList();
        Map<Long, CouponProgress> counts = progress.findByCouponIds(usable.stream().map(CouponView::boxedId).toList());
        return usable.stream()
                .map(coupon -> new AvailableCoupon(coupon, coupon.discountOn(price), remaining(coupon, counts.get(coupon.id()))))
                .filter(available -> available.remainingCount() > 0)
                .sorted(Comparator.comparing(AvailableCoupon::discountAmount).reversed()
                        .thenComparing(available -> available.coupon().id()))
                .toList();
    }

    private List<? extends CouponView> placeCoupons(long placeId) {
        catalog.findPlace(placeId).orElseThrow(() -> ApiProblem.placeNotFound(placeId));
        return catalog.findPlaceCoupons(placeId);
    }

    private static int remaining(CouponView coupon, CouponProgress count) {
        return Math.max(0, coupon.issueLimit() - count.issuedCount());
    }
}
