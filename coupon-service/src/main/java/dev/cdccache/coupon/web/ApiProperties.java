package dev.cdccache.coupon.web;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Limits of the public API ({@code coupon.api.*}).
 *
 * @param maxBulkIds the most ids one {@code GET /coupons?ids=} may ask for (default 500); bounds the
 *                   size of the one {@code IN} query a bulk miss costs
 */
@ConfigurationProperties("coupon.api")
public record ApiProperties(Integer maxBulkIds) {

    public ApiProperties {
        maxBulkIds = maxBulkIds == null ? 500 : maxBulkIds;
        if (maxBulkIds < 1) {
            throw new IllegalArgumentException("coupon.api.max-bulk-ids must be at least 1, was " + maxBulkIds);
        }
    }
}
