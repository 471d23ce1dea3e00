package dev.cdccache.bench.simulation;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.StringJoiner;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The coupons and places the coupon simulations ask for, read from the database the generator filled (so
 * the simulations follow whatever ids and codes it produced). The reference traffic of a coupon-metadata
 * service reads the same entities over and over: a hot set ({@code -DhotCoupons}, default 10% of coupons; {@code -DhotPlaces},
 * default 10% of places) takes {@code -DhotShare} (default 90%) of the references, the rest are uniform over
 * everything. The hot set is drawn with a fixed seed, so every cache mode gets the same requests.
 */
final class CouponTestData {

    final List<Long> couponIds;
    final List<String> codes;
    final List<Long> placeIds;
    final List<Long> hotCoupons;
    final List<Long> hotPlaces;
    private final Map<Long, Integer> indexOf = new HashMap<>();
    private final double hotShare;

    private CouponTestData(List<Long> couponIds, List<String> codes, List<Long> placeIds) {
        if (couponIds.isEmpty() || placeIds.isEmpty()) {
            throw new IllegalStateException("no coupons or places in the database: run the data generator first");
        }
        this.couponIds = couponIds;
        this.codes = codes;
        this.placeIds = placeIds;
        for (int i = 0; i < couponIds.size(); i++) {
            indexOf.put(couponIds.get(i), i);
        }
        Random random = new Random(SimulationSettings.integer("dataSeed", 42));
        List<Long> shuffledCoupons = new ArrayList<>(couponIds);
        Collections.shuffle(shuffledCoupons, random);
        List<Long> shuffledPlaces = new ArrayList<>(placeIds);
        Collections.shuffle(shuffledPlaces, random);
        int hotCouponCount = SimulationSettings.integer("hotCoupons", Math.max(1, couponIds.size() / 10));
        int hotPlaceCount = SimulationSettings.integer("hotPlaces", Math.max(1, placeIds.size() / 10));
        this.hotCoupons = List.copyOf(shuffledCoupons.subList(0, Math.min(hotCouponCount, shuffledCoupons.size())));
        this.hotPlaces = List.copyOf(shuffledPlaces.subList(0, Math.min(hotPlaceCount, shuffledPlaces.size())));
        this.hotShare = SimulationSettings.decimal("hotShare", 0.9);
    }

    /** Loads ids, codes and places from {@code -DcouponDatabase} (default {@code coupon_db}). */
    static CouponTestData load() {
        String database = SimulationSettings.string("couponDatabase", "coupon_db");
        List<Long> ids = new ArrayList<>();
        List<String> codes = new ArrayList<>();
        List<Long> places = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(SimulationSettings.jdbcUrl(),
                SimulationSettings.jdbcUser(), SimulationSettings.jdbcPassword());
                Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery("SELECT id, code FROM " + database + ".coupon ORDER BY id")) {
                while (rows.next()) {
                    ids.add(rows.getLong(1));
                    codes.add(rows.getString(2));
                }
            }
            try (ResultSet rows = statement.executeQuery(
                    "SELECT DISTINCT place_id FROM " + database + ".coupon ORDER BY place_id")) {
                while (rows.next()) {
                    places.add(rows.getLong(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read coupon test data from " + SimulationSettings.jdbcUrl()
                    + " (set -DjdbcUrl, -DjdbcUser, -DjdbcPassword): " + e.getMessage(), e);
        }
        return new CouponTestData(ids, codes, places);
    }

    long coupon(ThreadLocalRandom random) {
        return random.nextDouble() < hotShare ? pick(hotCoupons, random) : pick(couponIds, random);
    }

    long place(ThreadLocalRandom random) {
        return random.nextDouble() < hotShare ? pick(hotPlaces, random) : pick(placeIds, random);
    }

    String codeOf(long couponId) {
        return codes.get(indexOf.get(couponId));
    }

    /** A comma-separated list of {@code min..max} coupon ids (repeats possible, as in real lists). */
    String idList(ThreadLocalRandom random, int min, int max) {
        int size = min + random.nextInt(max - min + 1);
        StringJoiner joiner = new StringJoiner(",");
        for (int i = 0; i < size; i++) {
            joiner.add(Long.toString(coupon(random)));
        }
        return joiner.toString();
    }

    /** An endless feeder of request parameters: couponId, code, placeId, userId, price. */
    Iterator<Map<String, Object>> feeder() {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Map<String, Object> next() {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long coupon = coupon(random);
                Map<String, Object> values = new HashMap<>();
                values.put("couponId", coupon);
                values.put("code", codeOf(coupon));
                values.put("placeId", place(random));
                values.put("userId", 1 + random.nextLong(1_000_000_000L));
                values.put("price", BigDecimal.valueOf(10_000 + random.nextInt(290_000)).toPlainString());
                return values;
            }
        };
    }

    private static long pick(List<Long> values, ThreadLocalRandom random) {
        return values.get(random.nextInt(values.size()));
    }
}
