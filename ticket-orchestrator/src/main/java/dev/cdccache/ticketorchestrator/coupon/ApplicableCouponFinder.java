package dev.cdccache.ticketorchestrator.coupon;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the coupons of the places on one page: one coupon-service call per distinct place (a search page
 * is one parking lot, so one call per page), all within one overall deadline. Whatever goes wrong (refused
 * connection, timeout, error status, no free call slot) the answer is "degraded" with a reason, never an
 * exception, so the search still answers in time.
 *
 * <p>{@link #start} returns at once, so the calls overlap the caller's own database work.
 */
public class ApplicableCouponFinder {

    private static final Logger log = LoggerFactory.getLogger(ApplicableCouponFinder.class);

    private final CouponServiceClient client;
    private final Executor calls;
    private final CouponProperties properties;
    private final MeterRegistry meters;

    /**
     * @param client     coupon-service's API
     * @param calls      runs the calls, so the caller can stop waiting at the deadline
     * @param properties the overall deadline
     * @param meters     counts degraded answers by reason
     */
    public ApplicableCouponFinder(CouponServiceClient client, Executor calls, CouponProperties properties,
                                  MeterRegistry meters) {
        this.client = client;
        this.calls = calls;
        this.properties = properties;
        this.meters = meters;
    }

    /**
     * Starts looking up the coupons of {@code placeIds}; the deadline runs from now.
     *
     * @param placeIds distinct coupon-service places
     * @return the lookup in flight
     */
    public PendingCoupons start(Set<Long> placeIds) {
        long deadline = System.nanoTime() + properties.timeout().toNanos();
        Map<Long, CompletableFuture<List<Coupon>>> calls = new LinkedHashMap<>();
        try {
            for (long placeId : placeIds) {
                calls.put(placeId, CompletableFuture.supplyAsync(() -> client.placeCoupons(placeId), this.calls));
            }
        } catch (RejectedExecutionException e) {
            calls.values().forEach(call -> call.cancel(true));
            ApplicableCoupons busy = degraded("busy", "too many coupon-service calls in flight");
            return () -> busy;
        }
        return () -> await(calls, deadline);
    }

    /**
     * Looks up the coupons of {@code placeIds} and waits for them.
     *
     * @return their coupons, or a degraded answer within {@code ticket.coupons.timeout}
     */
    public ApplicableCoupons find(Set<Long> placeIds) {
        return start(placeIds).await();
    }

    private ApplicableCoupons await(Map<Long, CompletableFuture<List<Coupon>>> calls, long deadline) {
        try {
            Map<Long, List<Coupon>> found = new LinkedHashMap<>();
            for (var call : calls.entrySet()) {
                long remaining = Math.max(0, deadline - System.nanoTime());
                found.put(call.getKey(), call.getValue().get(remaining, TimeUnit.NANOSECONDS));
            }
            return ApplicableCoupons.found(found);
        } catch (TimeoutException e) {
            return degraded("timeout", "coupon-service did not answer within " + properties.timeout().toMillis()
                    + " ms");
        } catch (ExecutionException | CancellationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return degraded("error", "coupon-service call failed: " + describe(cause));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return degraded("interrupted", "interrupted while waiting for coupon-service");
        } finally {
            // a late answer is of no use to anyone: free the slot
            calls.values().forEach(call -> call.cancel(true));
        }
    }

    private ApplicableCoupons degraded(String kind, String reason) {
        meters.counter("ticket.coupons.degraded", "reason", kind).increment();
        log.debug("Answering without coupons: {}", reason);
        return ApplicableCoupons.degraded(reason);
    }

    private static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? "" : ": " + root.getMessage();
        return failure == root ? root.getClass().getSimpleName() + message
                : failure.getClass().getSimpleName() + " (" + root.getClass().getSimpleName() + message + ")";
    }

    /** A coupon lookup in flight. */
    @FunctionalInterface
    public interface PendingCoupons {

        /** @return the coupons, or a degraded answer, no later than the lookup's deadline */
        ApplicableCoupons await();
    }
}
