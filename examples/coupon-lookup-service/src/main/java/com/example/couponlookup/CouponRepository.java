package com.example.couponlookup;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Plain SQL against the coupon table; no caching here. */
@Repository
public class CouponRepository {

    private static final String COLUMNS = "SELECT id, code, name, discount_value, status FROM coupon";

    private final JdbcClient jdbc;

    public CouponRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public Optional<Coupon> findById(long id) {
        return jdbc.sql(COLUMNS + " WHERE id = ?").param(id).query(Coupon.class).optional();
    }

    public Optional<Coupon> findByCode(String code) {
        return jdbc.sql(COLUMNS + " WHERE code = ?").param(code).query(Coupon.class).optional();
    }

    /** The coupons that exist among {@code ids}, by id, in one query. */
    public Map<Long, Coupon> findAllById(Collection<? extends Long> ids) {
        // list(), not stream(): a stream holds its connection until it is closed
        return jdbc.sql(COLUMNS + " WHERE id IN (:ids)").param("ids", ids).query(Coupon.class).list().stream()
                .collect(Collectors.toMap(Coupon::id, Function.identity()));
    }
}
