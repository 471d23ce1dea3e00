package dev.cdccache.coupon.admin;

import dev.cdccache.coupon.catalog.Coupon;
import dev.cdccache.coupon.catalog.CouponMetadataRepository;
import dev.cdccache.coupon.problem.ApiProblem;
import java.util.List;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Metadata changes. They only write the database, in one transaction each; no cache is touched here:
 * the change stream evicts every instance's entries, exactly as for a change made by any other writer.
 */
@Service
public class CouponAdminService {

    private final JdbcClient jdbc;
    private final CouponMetadataRepository metadata;

    public CouponAdminService(JdbcClient jdbc, CouponMetadataRepository metadata) {
        this.jdbc = jdbc;
        this.metadata = metadata;
    }

    /** Creates a coupon with its attributes and an empty progress row; returns it as stored. */
    @Transactional
    public Coupon create(CouponRequest request) {
        requirePlace(request.placeId());
        GeneratedKeyHolder keys = new GeneratedKeyHolder();
        try {
            bind(jdbc.sql("""
                    INSERT INTO coupon (code, place_id, name, discount_type, discount_value, minimum_price,
                                        valid_from, valid_until, status, issue_limit)
                    VALUES (:code, :placeId, :name, :discountType, :discountValue, :minimumPrice,
                            :validFrom, :validUntil, :status, :issueLimit)
                    """), request).update(keys, "id");
        } catch (DuplicateKeyException e) {
            throw codeTaken(request.code());
        }
        long id = keys.getKey().longValue();
        insertAttributes(id, request.attributes());
        jdbc.sql("INSERT INTO coupon_progress (coupon_id, issued_count, used_count) VALUES (:id, 0, 0)")
                .param("id", id).update();
        return metadata.findCouponById(id).orElseThrow();
    }

    /** Replaces the metadata and attributes of coupon {@code id}; returns it as stored. */
    @Transactional
    public Coupon update(long id, CouponRequest request) {
        requirePlace(request.placeId());
        int updated;
        try {
            updated = bind(jdbc.sql("""
                    UPDATE coupon SET code = :code, place_id = :placeId, name = :name, discount_type = :discountType,
                                      discount_value = :discountValue, minimum_price = :minimumPrice,
                                      valid_from = :validFrom, valid_until = :validUntil, status = :status,
                                      issue_limit = :issueLimit, updated_at = CURRENT_TIMESTAMP(6)
                     WHERE id = :id
                    """), request).param("id", id).update();
        } catch (DuplicateKeyException e) {
            throw codeTaken(request.code());
        }
        if (updated == 0) {
            throw ApiProblem.couponNotFound(id);
        }
        jdbc.sql("DELETE FROM coupon_attribute WHERE coupon_id = :id").param("id", id).update();
        insertAttributes(id, request.attributes());
        return metadata.findCouponById(id).orElseThrow();
    }

    private void requirePlace(long placeId) {
        if (!metadata.placeExists(placeId)) {
            throw ApiProblem.unprocessable("Unknown place", "placeId " + placeId + " does not name an existing place");
        }
    }

    private void insertAttributes(long couponId, List<AttributeRequest> attributes) {
        if (attributes.isEmpty()) {
            return;
        }
        StringBuilder sql = new StringBuilder("INSERT INTO coupon_attribute (coupon_id, attribute_key, attribute_value) VALUES ");
        JdbcClient.StatementSpec statement;
        for (int i = 0; i < attributes.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(:couponId, :key").append(i).append(", :value").append(i).append(')');
        }
        statement = jdbc.sql(sql.toString()).param("couponId", couponId);
        for (int i = 0; i < attributes.size(); i++) {
            statement = statement.param("key" + i, attributes.get(i).key()).param("value" + i, attributes.get(i).value());
        }
        statement.update();
    }

    private static JdbcClient.StatementSpec bind(JdbcClient.StatementSpec statement, CouponRequest request) {
        return statement.param("code", request.code())
                .param("placeId", request.placeId())
                .param("name", request.name())
                .param("discountType", request.discountType().name())
                .param("discountValue", request.discountValue())
                .param("minimumPrice", request.minimumPrice())
                .param("validFrom", request.validFrom())
                .param("validUntil", request.validUntil())
                .param("status", request.status().name())
                .param("issueLimit", request.issueLimit());
    }

    private static ApiProblem codeTaken(String code) {
        return ApiProblem.conflict("Coupon code taken", "another coupon already has code '" + code + "'");
    }
}
