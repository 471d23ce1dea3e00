package dev.cdccache.coupon.web;

import dev.cdccache.coupon.catalog.CouponView;
import dev.cdccache.coupon.catalog.CouponCatalog;
import dev.cdccache.coupon.place.AvailableCoupon;
import dev.cdccache.coupon.place.PlaceCouponService;
import dev.cdccache.coupon.problem.ApiProblem;
import dev.cdccache.coupon.progress.CouponIssuer;
import dev.cdccache.coupon.progress.IssuedCoupon;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.LocalDate;
import java.util.List;
import org.springframework.format.annotation.DateTimeFormat;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** The public coupon endpoints. */
@RestController
@RequestMapping("/coupons")
public class CouponController {

    private final CouponCatalog catalog;
    private final PlaceCouponService placeCoupons;
    private final CouponIssuer issuer;
    private final ApiProperties api;
    private final Clock clock;

    public CouponController(CouponCatalog catalog, PlaceCouponService placeCoupons, CouponIssuer issuer,
            ApiProperties api, Clock clock) {
        this.catalog = catalog;
        this.placeCoupons = placeCoupons;
        this.issuer = issuer;
        this.api = api;
        this.clock = clock;
    }

    /** A coupon with its attributes; 404 when the id is unknown. */
    @GetMapping("/{id}")
    public CouponView coupon(@PathVariable @Positive long id) {
        return catalog.findCoupon(id).orElseThrow(() -> ApiProblem.couponNotFound(id));
    }

    /** Bulk lookup: the known coupons among {@code ids}, in request order, unknown ids left out. */
    @GetMapping
    public List<? extends CouponView> coupons(@RequestParam(name = "ids", required = false) String ids) {
        return catalog.findCoupons(CouponIdList.parse(ids, api.maxBulkIds()));
    }

    /** A coupon by its unique code; 404 when no coupon has it. */
    @GetMapping("/by-code/{code}")
    public CouponView couponByCode(@PathVariable @Size(max = 64)
            @Pattern(regexp = "[A-Za-z0-9_-]+", message = "may contain only letters, digits, '_' and '-'") String code) {
        return catalog.findCouponByCode(code).orElseThrow(() -> ApiProblem.couponCodeNotFound(code));
    }

    /**
     * Coupons of a place usable for a reservation at {@code price} on {@code date} (today when absent)
     * that can still be issued, best discount first.
     */
    @GetMapping("/available")
    public List<AvailableCoupon> available(
            @RequestParam @Positive long placeId,
            @RequestParam @DecimalMin("0") @Digits(integer = 10, fraction = 2) BigDecimal price,
            @RequestParam(required = false) @DateTimeFormat(iso = DateTimeFormat.ISO.DATE) LocalDate date) {
        return placeCoupons.availableCoupons(placeId, price, date == null ? LocalDate.now(clock) : date);
    }

    /** Issues the coupon to a user within its limit; 409 when sold out, not issuable, or already held. */
    @PostMapping("/{id}/issue")
    @ResponseStatus(HttpStatus.CREATED)
    public IssuedCoupon issue(@PathVariable @Positive long id, @Valid @RequestBody IssueRequest request) {
        return issuer.issue(id, request.userId());
    }
}
