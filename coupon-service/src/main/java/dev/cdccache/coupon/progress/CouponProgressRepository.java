package dev.cdccache.coupon.progress;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Repository;

/**
 * Progress counts and user coupons: the write-heavy tables, read and written in the database (the read
 * endpoints may read counts through a cache instead, see {@link ProgressCounts}).
 */
@Repository
public class CouponProgressRepository {

    private final JdbcClient jdbc;

    public CouponProgressRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Progress of these coupons in one query; coupons without a row get zero counts. */
    public Map<Long, CouponProgress> findByCouponIds(Collection<Long> couponIds) {
        Map<Long, CouponProgress> progress = new HashMap<>();
        if (couponIds.isEmpty()) {
            return progress;
        }
        jdbc.sql("SELECT coupon_id, issued_count, used_count FROM coupon_progress WHERE coupon_id IN (:ids)")
                .param("ids", couponIds)
                .query(rs -> {
                    long id = rs.getLong("coupon_id");
                    progress.put(id, new CouponProgress(rs.getInt("issued_count"), rs.getInt("used_count")));
                });
        couponIds.forEach(id -> progress.putIfAbsent(id, CouponProgress.none()));
        return progress;
    }

    /**
     * Counts one issue if the coupon is still below its limit, reading the limit and status from the
     * coupon row in the same statement (so a concurrent admin change cannot be bypassed). The row lock
     * on the progress row serialises concurrent issuers of one coupon until their transaction ends.
     *
     * @return whether a slot was taken
     */
    boolean takeIssueSlot(long couponId) {
        return jdbc.sql("""
                        UPDATE coupon_progress p
                          JOIN coupon c ON c.id = p.coupon_id
                           SET p.issued_count = p.issued_count + 1
                         WHERE p.coupon_id = :id
                           AND c.status = 'ACTIVE'
                           AND p.issued_count < c.issue_limit
                        """)
                .param("id", couponId)
                .update() == 1;
    }

    /** Creates the progress row of a coupon that has none (inserted by plain SQL, for instance). */
    boolean createIfMissing(long couponId) {
        return jdbc.sql("INSERT IGNORE INTO coupon_progress (coupon_id, issued_count, used_count) VALUES (:id, 0, 0)")
                .param("id", couponId)
                .update() == 1;
    }

    /** Records the issue to a user; fails with a duplicate-key error if the user already has it. */
    long insertUserCoupon(long couponId, long userId) {
        GeneratedKeyHolder keys = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO user_coupon (coupon_id, user_id, status) VALUES (:couponId, :userId, 'ISSUED')")
                .param("couponId", couponId)
                .param("userId", userId)
                .update(keys, "id");
        return Objects.requireNonNull(keys.getKey(), "no generated key for user_coupon").longValue();
    }

    boolean userHasCoupon(long couponId, long userId) {
        return jdbc.sql("SELECT COUNT(*) FROM user_coupon WHERE coupon_id = :couponId AND user_id = :userId")
                .param("couponId", couponId)
                .param("userId", userId)
                .query(Integer.class)
                .single() > 0;
    }
}
