package dev.cdccache.ticketorchestrator.coupon;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/** The bounded pool coupon-service calls run on, and the finder that puts a deadline on them. */
@Configuration(proxyBeanMethods = false)
class CouponConfiguration {

    @Bean(destroyMethod = "shutdownNow")
    ExecutorService couponCalls(CouponProperties properties) {
        // no queue worth the name: a call that cannot start now would only start after the deadline
        int threads = properties.maxConcurrentCalls();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(threads), new CustomizableThreadFactory("coupon-call-"),
                new ThreadPoolExecutor.AbortPolicy());
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    @Bean
    ApplicableCouponFinder applicableCouponFinder(CouponServiceClient client, ExecutorService couponCalls,
                                                  CouponProperties properties, MeterRegistry meters) {
        return new ApplicableCouponFinder(client, couponCalls, properties, meters);
    }
}
