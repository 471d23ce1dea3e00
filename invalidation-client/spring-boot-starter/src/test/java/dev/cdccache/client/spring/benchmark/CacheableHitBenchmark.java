package dev.cdccache.client.spring.benchmark;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.spring.CdcInvalidationAutoConfiguration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * A hit of a plain {@code @Cacheable} method through its proxy (Spring's cache interceptor, the starter's cache),
 * with consistency sampling off and on ({@code sampling.one-in: 1000}): the difference is what sampling costs such a
 * hit, the starter's advisor (noting the invocation) and the draw. Both contexts are wired by the auto-configuration.
 *
 * <p>Run as {@link CacheHitBenchmark} says, with {@code 'CacheableHitBenchmark'}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CacheableHitBenchmark {

    private static final int KEYS = 1 << 12;

    private AnnotationConfigApplicationContext samplingOff;
    private AnnotationConfigApplicationContext samplingOn;
    private Items itemsSamplingOff;
    private Items itemsSamplingOn;
    private Long[] keys;
    private int index;

    @Setup
    public void setUp() {
        samplingOff = context(0);
        samplingOn = context(1_000);
        itemsSamplingOff = samplingOff.getBean(Items.class);
        itemsSamplingOn = samplingOn.getBean(Items.class);
        keys = new Long[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = (long) i;
            itemsSamplingOff.find(keys[i]);
            itemsSamplingOn.find(keys[i]);
        }
        if (itemsSamplingOff.calls() != KEYS || itemsSamplingOn.calls() != KEYS) {
            throw new IllegalStateException("values were not cached: " + itemsSamplingOff.calls() + " and "
                    + itemsSamplingOn.calls() + " calls for " + KEYS + " keys");
        }
    }

    private static AnnotationConfigApplicationContext context(int samplingOneIn) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("benchmark",
                Map.of("cdc.invalidation.bootstrap-servers", "in-memory:0",
                        "cdc.invalidation.sampling.one-in", String.valueOf(samplingOneIn))));
        context.registerBean(InvalidationClient.class,
                () -> BenchmarkClients.readyClient(StalenessPolicy.BYPASS_CACHE, null, samplingOneIn));
        context.register(App.class, CdcInvalidationAutoConfiguration.class);
        context.refresh();
        return context;
    }

    /** A benchmark of hits must not measure misses. */
    @TearDown
    public void tearDown() {
        long missed = itemsSamplingOff.calls() + itemsSamplingOn.calls() - 2L * KEYS;
        samplingOff.close();
        samplingOn.close();
        if (missed != 0) {
            throw new IllegalStateException(missed + " calls were misses");
        }
    }

    private Long nextKey() {
        return keys[index++ & (KEYS - 1)];
    }

    @Benchmark
    public String cacheableHitSamplingOff() {
        return itemsSamplingOff.find(nextKey());
    }

    @Benchmark
    public String cacheableHitSamplingOn() {
        return itemsSamplingOn.find(nextKey());
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class App {

        @Bean
        Items items() {
            return new Items();
        }
    }

    /** A cached method; {@link #calls} counts its runs for callers (misses), not the sampler's calls. */
    public static class Items {
        volatile int calls;

        /** A method, not the field: the bean is a class proxy, whose own copy of the field stays 0. */
        public int calls() {
            return calls;
        }

        @Cacheable("items")
        public String find(Long id) {
            if (!Thread.currentThread().getName().equals("cdc-consistency-sampler")) {
                calls++;
            }
            return BenchmarkClients.valueOf(id);
        }
    }
}
