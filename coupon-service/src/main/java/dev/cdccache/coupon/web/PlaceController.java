package dev.cdccache.coupon.web;

import dev.cdccache.coupon.place.CouponWithProgress;
import dev.cdccache.coupon.place.PlaceCouponService;
import jakarta.validation.constraints.Positive;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** Place endpoints. */
@RestController
public class PlaceController {

    private final PlaceCouponService placeCoupons;

    public PlaceController(PlaceCouponService placeCoupons) {
        this.placeCoupons = placeCoupons;
    }

    /**
     * The place's coupons with their attributes (cached) and live progress
     * counts (database); 404 for an unknown place.
     */
    @GetMapping("/places/{placeId}/coupon-progresses")
    public List<CouponWithProgress> couponProgresses(@PathVariable @Positive long placeId) {
        return placeCoupons.couponProgresses(placeId);
    }
}
