package dev.cdccache.coupon.testing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** Request bodies of the admin API built from a coupon as the public API served it. */
public final class CouponBodies {

    private CouponBodies() {
    }

    /**
     * The body of a {@code PUT /admin/coupons/{id}} that keeps every field of {@code coupon} but its name and
     * attributes. The fields are sent back as read, so they are read right: {@code asString()} of a missing field
     * is "", never null.
     */
    public static String renamed(JsonNode coupon, String name, List<Map<String, String>> attributes) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", coupon.path("code").asString());
        body.put("placeId", coupon.path("placeId").asLong());
        body.put("name", name);
        body.put("discountType", coupon.path("discountType").asString());
        body.put("discountValue", coupon.path("discountValue").decimalValue());
        body.put("minimumPrice", coupon.path("minimumPrice").decimalValue());
        body.put("validFrom", coupon.path("validFrom").asString());
        body.put("validUntil", coupon.path("validUntil").asString());
        body.put("status", coupon.path("status").asString());
        body.put("issueLimit", coupon.path("issueLimit").asInt());
        body.put("attributes", attributes);
        return ApiClient.toJson(body);
    }
}
