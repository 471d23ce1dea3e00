package dev.cdccache.client.spring;

import dev.cdccache.client.cache.SampledHit;
import java.lang.reflect.Method;
import java.util.Optional;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

/**
 * The {@code @Cacheable} invocation running on each thread, so that a sampled hit of the Spring cache adapter can be
 * re-read by calling the cached method again (consistency sampling of non-{@code sync} {@code @Cacheable}).
 *
 * <p>{@link Interceptor} runs outside Spring's cache interceptor ({@link CacheableSamplingAdvisor}) and notes the
 * invocation for its duration: a reference to Spring's own invocation object in a per-thread holder, nothing
 * allocated. When the adapter's {@code get(key)} hit is drawn for a sample ({@link #drawn}), the target, the method
 * and a copy of the argument array are taken from it. Once the invocation returns, the hit is handed to the sampler
 * only if the invocation returned the very value the hit served: then the hit was the cache interceptor's own lookup
 * for this invocation and the method did not run (a hit read by the method's body through another {@code Cache}
 * call, or a {@code @CachePut} on the same method, returns something else and is dropped). An invocation that throws
 * hands over nothing.
 *
 * <p>Invocations nest (a cached method calling another bean's cached method): each level keeps its own invocation
 * and drawn hit, restored when the inner one returns.
 */
final class CacheableInvocations {

    /** Per thread, allocated once: the current invocation and its drawn hit. */
    private static final ThreadLocal<Current> CURRENT = ThreadLocal.withInitial(Current::new);

    private CacheableInvocations() {
    }

    /**
     * A hit of the adapter drawn for a sample: kept for the current {@code @Cacheable} invocation, if any and if it
     * has no drawn hit yet (the cache interceptor stops at its first hit).
     */
    static void drawn(SampledHit<Object, Object> hit, Object served) {
        Current current = CURRENT.get();
        MethodInvocation invocation = current.invocation;
        if (invocation == null || current.drawn != null || invocation.getThis() == null) {
            return;
        }
        // A copy of the array: the caller's array may be reused; the argument objects themselves are shared.
        current.drawn = new Drawn(hit, served, invocation.getThis(), invocation.getMethod(),
                invocation.getArguments().clone());
    }

    private static final class Current {
        MethodInvocation invocation;
        Drawn drawn;
    }

    /** A drawn hit, and how to call the method that cached it again. */
    record Drawn(SampledHit<Object, Object> hit, Object served, Object target, Method method, Object[] arguments) {

        /**
         * Whether {@code result}, what the invocation returned, is the value the hit served: the same object, or an
         * {@code Optional} of it (Spring caches an {@code Optional} method's content and wraps it again on a hit).
         */
        boolean servedAs(Object result) {
            return result == served || (result instanceof Optional<?> optional && optional.orElse(null) == served);
        }
    }

    /** Notes each invocation of a non-{@code sync} {@code @Cacheable} method for its duration; see the class comment. */
    static final class Interceptor implements MethodInterceptor {

        private final CacheableReinvocation reinvocation;

        Interceptor(CacheableReinvocation reinvocation) {
            this.reinvocation = reinvocation;
        }

        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            Current current = CURRENT.get();
            MethodInvocation outer = current.invocation;
            Drawn outerDrawn = current.drawn;
            current.invocation = invocation;
            current.drawn = null;
            Object result;
            Drawn drawn;
            try {
                result = invocation.proceed();
            } finally {
                drawn = current.drawn;
                current.invocation = outer;
                current.drawn = outerDrawn;
            }
            if (drawn != null && drawn.servedAs(result)) {
                drawn.hit().reread(reinvocation.loader(drawn));
            }
            return result;
        }
    }
}
