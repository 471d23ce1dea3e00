package dev.cdccache.ticketorchestrator.coupon;

import java.net.URI;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How coupon-service is reached ({@code ticket.coupons.*}).
 *
 * @param baseUrl         coupon-service's base URL
 * @param connectTimeout  TCP connect timeout of one call
 * @param readTimeout     socket read timeout of one call
 * @param timeout         the most a search waits for coupons in total; past it the search answers without
 *                        coupons, marked degraded
 * @param maxConcurrentCalls calls in flight at most; a search that finds no free slot is answered degraded
 *                        rather than queued behind a slow coupon-service
 */
@ConfigurationProperties("ticket.coupons")
public record CouponProperties(@DefaultValue("http://127.0.0.1:8081") URI baseUrl,
                               @DefaultValue("200ms") Duration connectTimeout,
                               @DefaultValue("500ms") Duration readTimeout,
                               @DefaultValue("800ms") Duration timeout,
                               @DefaultValue("64") int maxConcurrentCalls) {
}
