package dev.cdccache.coupon.catalog;

/** One "meta coupon attribute" row: a key/value pair describing where or how a coupon applies. */
public record CouponAttribute(String key, String value) {
}
