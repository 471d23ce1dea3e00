package dev.cdccache.coupon.admin;

import dev.cdccache.coupon.catalog.Coupon;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Positive;
import java.net.URI;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Admin metadata changes: database writes only; caches learn of them through CDC. */
@RestController
@RequestMapping("/admin/coupons")
public class AdminCouponController {

    private final CouponAdminService admin;

    public AdminCouponController(CouponAdminService admin) {
        this.admin = admin;
    }

    @PostMapping
    public ResponseEntity<Coupon> create(@Valid @RequestBody CouponRequest request) {
        Coupon created = admin.create(request);
        return ResponseEntity.created(URI.create("/coupons/" + created.id())).body(created);
    }

    @PutMapping("/{id}")
    public Coupon update(@PathVariable @Positive long id, @Valid @RequestBody CouponRequest request) {
        return admin.update(id, request);
    }
}
