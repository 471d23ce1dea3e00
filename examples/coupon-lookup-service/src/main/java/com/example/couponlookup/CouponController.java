package com.example.couponlookup;

import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /coupons/{id}}, {@code GET /coupons/by-code/{code}}, {@code GET /coupons?ids=1,2,3}. */
@RestController
public class CouponController {

    private final CouponLookup lookup;

    public CouponController(CouponLookup lookup) {
        this.lookup = lookup;
    }

    @GetMapping("/coupons/{id}")
    public ResponseEntity<Coupon> byId(@PathVariable long id) {
        return ResponseEntity.ofNullable(lookup.byId(id));
    }

    @GetMapping("/coupons/by-code/{code}")
    public ResponseEntity<Coupon> byCode(@PathVariable String code) {
        return ResponseEntity.ofNullable(lookup.byCode(code));
    }

    @GetMapping("/coupons")
    public List<Coupon> byIds(@RequestParam List<Long> ids) {
        return lookup.byIds(ids);
    }
}
