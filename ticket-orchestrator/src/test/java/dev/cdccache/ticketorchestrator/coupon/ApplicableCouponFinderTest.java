package dev.cdccache.ticketorchestrator.coupon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.web.client.RestClient;

/**
 * The coupon lookup against small local HTTP servers: a stub that answers, one that refuses, one that never
 * answers. (The real coupon-service is exercised by the integration tests.)
 */
class ApplicableCouponFinderTest {

    private static final String PROGRESSES = """
            [{"coupon":{"id":7,"code":"PARK-7","placeId":3,"name":"Night 10%","discountType":"PERCENTAGE",
              "discountValue":10.00,"minimumPrice":0,"validFrom":"2026-01-01","validUntil":"2026-12-31",
              "status":"ACTIVE","issueLimit":100,"updatedAt":"2026-01-01T00:00:00","attributes":[]},
              "issuedCount":10,"usedCount":2,"remainingCount":90}]
            """;

    /** Timeouts for the cases that do not test timing: a busy machine must not make them fail. */
    private static final Duration GENEROUS = Duration.ofSeconds(5);

    private final ExecutorService calls = Executors.newFixedThreadPool(4);
    private HttpServer stub;
    private ServerSocket silent;

    @AfterEach
    void stop() throws IOException {
        if (stub != null) {
            stub.stop(0);
        }
        if (silent != null) {
            silent.close();
        }
        calls.shutdownNow();
    }

    @Test
    void findsThePlacesCouponsWithOneCallPerPlace() throws IOException {
        AtomicInteger requests = new AtomicInteger();
        URI base = stub(200, PROGRESSES, requests);

        ApplicableCoupons found = finder(base, GENEROUS, GENEROUS).find(Set.of(3L));

        assertThat(found.degraded()).isFalse();
        assertThat(found.degradedReason()).isNull();
        assertThat(requests).hasValue(1);
        List<Coupon> coupons = found.forPlace(3);
        assertThat(coupons).singleElement().satisfies(coupon -> {
            assertThat(coupon.id()).isEqualTo(7);
            assertThat(coupon.code()).isEqualTo("PARK-7");
            assertThat(coupon.remainingCount()).isEqualTo(90);
            assertThat(coupon.applicableBetween(LocalDate.of(2026, 5, 1), LocalDate.of(2026, 5, 31))).isTrue();
            assertThat(coupon.applicableBetween(LocalDate.of(2027, 1, 1), LocalDate.of(2027, 1, 31))).isFalse();
        });
    }

    @Test
    void aPlaceCouponServiceDoesNotKnowHasNoCouponsWithoutDegrading() throws IOException {
        URI base = stub(404, "{\"status\":404}", new AtomicInteger());

        ApplicableCoupons found = finder(base, GENEROUS, GENEROUS).find(Set.of(99L));

        assertThat(found.degraded()).isFalse();
        assertThat(found.forPlace(99)).isEmpty();
    }

    @Test
    void anErrorStatusDegradesWithTheReason() throws IOException {
        URI base = stub(503, "{}", new AtomicInteger());

        ApplicableCoupons found = finder(base, GENEROUS, GENEROUS).find(Set.of(3L));

        assertThat(found.degraded()).isTrue();
        assertThat(found.degradedReason()).contains("coupon-service").contains("503");
        assertThat(found.forPlace(3)).isEmpty();
    }

    @Test
    void aClosedPortDegradesAtOnce() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        long started = System.nanoTime();

        ApplicableCoupons found = finder(URI.create("http://127.0.0.1:" + closedPort), GENEROUS, GENEROUS)
                .find(Set.of(3L));

        assertThat(found.degraded()).isTrue();
        // the refusal, not the deadline, ended the call
        assertThat(found.degradedReason()).startsWith("coupon-service call failed");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(GENEROUS);
    }

    @Test
    void aServerThatNeverAnswersDegradesAtTheDeadline() throws IOException {
        // accepts connections (the kernel completes the handshake) but never reads or writes
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        URI base = URI.create("http://127.0.0.1:" + silent.getLocalPort());
        Duration deadline = Duration.ofMillis(300);
        long started = System.nanoTime();

        ApplicableCoupons found = finder(base, Duration.ofSeconds(5), deadline).find(Set.of(3L));

        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(found.degraded()).isTrue();
        assertThat(found.degradedReason()).isEqualTo("coupon-service did not answer within 300 ms");
        // well before the 5 s read timeout: the deadline, not the socket, ended the wait
        assertThat(took).isGreaterThanOrEqualTo(deadline).isLessThan(deadline.plusMillis(1500));
    }

    @Test
    void theReadTimeoutEndsACallBeforeALongerDeadline() throws IOException {
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        URI base = URI.create("http://127.0.0.1:" + silent.getLocalPort());
        long started = System.nanoTime();

        ApplicableCoupons found = finder(base, Duration.ofMillis(200), GENEROUS).find(Set.of(3L));

        assertThat(found.degraded()).isTrue();
        // the socket's read timeout, not the deadline, ended the call
        assertThat(found.degradedReason()).startsWith("coupon-service call failed").contains("Timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(GENEROUS);
    }

    private ApplicableCouponFinder finder(URI base, Duration readTimeout, Duration deadline) {
        CouponProperties properties = new CouponProperties(base, Duration.ofSeconds(2), readTimeout, deadline, 4);
        return new ApplicableCouponFinder(new CouponServiceClient(RestClient.builder(), properties), calls,
                properties, new SimpleMeterRegistry());
    }

    private URI stub(int status, String body, AtomicInteger requests) throws IOException {
        stub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        stub.createContext("/places/", exchange -> {
            requests.incrementAndGet();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type",
                    status == 200 ? "application/json" : "application/problem+json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        stub.start();
        return URI.create("http://127.0.0.1:" + stub.getAddress().getPort());
    }
}
