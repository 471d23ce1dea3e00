package dev.cdccache.coupon.catalog;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads coupon metadata, attributes and places from the database. Every method is exactly one SQL
 * statement: a coupon and its attributes come from one join, so they always belong to one snapshot
 * and a bulk load of many ids costs one round trip.
 */
@Repository
public class CouponMetadataRepository {

    private static final String COUPON_WITH_ATTRIBUTES = """
            SELECT c.id, c.code, c.place_id, c.name, c.discount_type, c.discount_value, c.minimum_price,
                   c.valid_from, c.valid_until, c.status, c.issue_limit, c.updated_at,
                   a.attribute_key, a.attribute_value
              FROM coupon c
              LEFT JOIN coupon_attribute a ON a.coupon_id = c.id
            """;

    private final JdbcClient jdbc;

    public CouponMetadataRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The coupons with these ids, keyed by id (map order is ascending id); one query. */
    public Map<Long, Coupon> findCouponsByIds(Collection<? extends Long> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        CouponRowCollector collector = new CouponRowCollector();
        jdbc.sql(COUPON_WITH_ATTRIBUTES + " WHERE c.id IN (:ids) ORDER BY c.id, a.id")
                .param("ids", ids)
                .query(collector);
        return collector.coupons();
    }

    public Optional<Coupon> findCouponById(long id) {
        return Optional.ofNullable(findCouponsByIds(List.of(id)).get(id));
    }

    public Optional<Coupon> findCouponByCode(String code) {
        CouponRowCollector collector = new CouponRowCollector();
        jdbc.sql(COUPON_WITH_ATTRIBUTES + " WHERE c.code = :code ORDER BY a.id")
                .param("code", code)
                .query(collector);
        return collector.coupons().values().stream().findFirst();
    }

    public List<Coupon> findCouponsByPlace(long placeId) {
        CouponRowCollector collector = new CouponRowCollector();
        jdbc.sql(COUPON_WITH_ATTRIBUTES + " WHERE c.place_id = :placeId ORDER BY c.id, a.id")
                .param("placeId", placeId)
                .query(collector);
        return List.copyOf(collector.coupons().values());
    }

    public Optional<Long> findCouponIdByCode(String code) {
        return jdbc.sql("SELECT id FROM coupon WHERE code = :code")
                .param("code", code)
                .query(Long.class)
                .optional();
    }

    /** Ids of a place's coupons, ascending; an immutable list, safe to share through a cache. */
    public List<Long> findCouponIdsByPlace(long placeId) {
        return List.copyOf(jdbc.sql("SELECT id FROM coupon WHERE place_id = :placeId ORDER BY id")
                .param("placeId", placeId)
                .query(Long.class)
                .list());
    }

    public Optional<Place> findPlaceById(long id) {
        return jdbc.sql("SELECT id, name, region, category FROM place WHERE id = :id")
                .param("id", id)
                .query((rs, row) -> new Place(rs.getLong("id"), rs.getString("name"),
                        rs.getString("region"), rs.getString("category")))
                .optional();
    }

    public boolean placeExists(long id) {
        return jdbc.sql("SELECT COUNT(*) FROM place WHERE id = :id").param("id", id).query(Integer.class).single() > 0;
    }

    /** Folds the rows of the coupon/attribute join into coupons; rows of one coupon are adjacent. */
    private static final class CouponRowCollector implements RowCallbackHandler {

        private final Map<Long, CouponRow> rows = new LinkedHashMap<>();

        @Override
        public void processRow(ResultSet rs) throws SQLException {
            long id = rs.getLong("id");
            CouponRow row = rows.get(id);
            if (row == null) {
                row = new CouponRow(rs);
                rows.put(id, row);
            }
            String key = rs.getString("attribute_key");
            if (key != null) {
                row.attributes.add(new CouponAttribute(key, rs.getString("attribute_value")));
            }
        }

        Map<Long, Coupon> coupons() {
            Map<Long, Coupon> coupons = new LinkedHashMap<>();
            rows.forEach((id, row) -> coupons.put(id, row.toCoupon()));
            return coupons;
        }
    }

    private static final class CouponRow {
        private final long id;
        private final String code;
        private final long placeId;
        private final String name;
        private final DiscountType discountType;
        private final BigDecimal discountValue;
        private final BigDecimal minimumPrice;
        private final LocalDate validFrom;
        private final LocalDate validUntil;
        private final CouponStatus status;
        private final int issueLimit;
        private final LocalDateTime updatedAt;
        private final List<CouponAttribute> attributes = new ArrayList<>();

        CouponRow(ResultSet rs) throws SQLException {
            id = rs.getLong("id");
            code = rs.getString("code");
            placeId = rs.getLong("place_id");
            name = rs.getString("name");
            discountType = DiscountType.valueOf(rs.getString("discount_type"));
            discountValue = rs.getBigDecimal("discount_value");
            minimumPrice = rs.getBigDecimal("minimum_price");
            validFrom = rs.getObject("valid_from", LocalDate.class);
            validUntil = rs.getObject("valid_until", LocalDate.class);
            status = CouponStatus.valueOf(rs.getString("status"));
            issueLimit = rs.getInt("issue_limit");
            updatedAt = rs.getObject("updated_at", LocalDateTime.class);
        }

        Coupon toCoupon() {
            return new Coupon(id, code, placeId, name, discountType, discountValue, minimumPrice, validFrom,
                    validUntil, status, issueLimit, updatedAt, attributes);
        }
    }
}
