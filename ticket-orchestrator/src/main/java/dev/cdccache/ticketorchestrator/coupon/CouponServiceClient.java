package dev.cdccache.ticketorchestrator.coupon;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientResponseException;

/**
 * coupon-service's HTTP API as this service uses it. Every call has connect and read timeouts; callers
 * that need an overall deadline use {@link ApplicableCouponFinder}.
 */
@Component
public class CouponServiceClient {

    private final RestClient http;

    /**
     * @param builder    Boot's builder (JSON converters, observation)
     * @param properties base URL and timeouts
     */
    public CouponServiceClient(RestClient.Builder builder, CouponProperties properties) {
        this.http = builder.clone()
                .baseUrl(properties.baseUrl().toString())
                .requestFactory(ClientHttpRequestFactoryBuilder.jdk().build(HttpClientSettings.defaults()
                        .withTimeouts(properties.connectTimeout(), properties.readTimeout())))
                .build();
    }

    /**
     * The coupons of one coupon-service place with their live remaining counts
     * ({@code GET /places/{placeId}/coupon-progresses}); empty for a place coupon-service does not know.
     *
     * @throws org.springframework.web.client.RestClientException when coupon-service cannot be reached,
     *                                                             times out or answers another error
     */
    public List<Coupon> placeCoupons(long placeId) {
        CouponProgress[] progresses = http.get()
                .uri("/places/{placeId}/coupon-progresses", placeId)
                .exchange((request, response) -> {
                    if (response.getStatusCode().value() == HttpStatus.NOT_FOUND.value()) {
                        // a lot mapped to a place coupon-service does not have simply has no coupons
                        return new CouponProgress[0];
                    }
                    if (!response.getStatusCode().is2xxSuccessful()) {
                        throw new RestClientResponseException("coupon-service answered " + response.getStatusCode(),
                                response.getStatusCode(), response.getStatusText(), response.getHeaders(), null,
                                null);
                    }
                    return response.bodyTo(CouponProgress[].class);
                });
        List<Coupon> coupons = new ArrayList<>();
        if (progresses != null) {
            for (CouponProgress progress : progresses) {
                if (progress != null && progress.coupon() != null) {
                    coupons.add(progress.toCoupon());
                }
            }
        }
        return coupons;
    }

    /** One element of coupon-service's coupon-progresses answer. */
    record CouponProgress(CouponBody coupon, int issuedCount, int usedCount, int remainingCount) {

        Coupon toCoupon() {
            return new Coupon(coupon.id(), coupon.code(), coupon.placeId(), coupon.name(), coupon.discountType(),
                    coupon.discountValue(), coupon.validFrom(), coupon.validUntil(), coupon.status(), remainingCount);
        }
    }

    /** coupon-service's coupon, the fields used here. */
    record CouponBody(long id, String code, long placeId, String name, String discountType, BigDecimal discountValue,
                      LocalDate validFrom, LocalDate validUntil, String status) {
    }
}
