package dev.cdccache.client.spring;

import java.lang.reflect.Method;
import java.util.Collection;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.cache.annotation.AnnotationCacheOperationSource;
import org.springframework.cache.interceptor.BeanFactoryCacheOperationSourceAdvisor;
import org.springframework.cache.interceptor.CacheOperation;
import org.springframework.cache.interceptor.CacheOperationSource;
import org.springframework.cache.interceptor.CacheableOperation;
import org.springframework.core.Ordered;

/**
 * Consistency sampling of non-{@code sync} {@code @Cacheable} methods: advises every method with such an operation
 * with {@link CacheableInvocations.Interceptor}, ordered just outside Spring's cache interceptor (one above the order
 * of {@code @EnableCaching}, {@link Ordered#LOWEST_PRECEDENCE} by default), so that the invocation is noted before the
 * cache is looked up. Registered by the auto-configuration only while {@code cdc.invalidation.sampling.one-in} is above
 * 0; with caching at {@link Ordered#HIGHEST_PRECEDENCE} it cannot be outside and samples nothing.
 *
 * <p>Matches on the caching annotations alone, whatever cache manager the operation uses: the hits of other cache
 * managers' caches are never drawn, so their invocations pay the noting only.
 */
final class CacheableSamplingAdvisor extends AbstractPointcutAdvisor {

    private final transient ListableBeanFactory beanFactory;
    private final transient Advice advice;
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            Collection<CacheOperation> operations = operationSource.getCacheOperations(method, targetClass);
            if (operations != null) {
                for (CacheOperation operation : operations) {
                    if (operation instanceof CacheableOperation cacheable && !cacheable.isSync()) {
                        return true;
                    }
                }
            }
            return false;
        }
    };
    /**
     * The caching annotations, read as {@code @EnableCaching} reads them (non-public methods too). An instance of its
     * own: looking up the application's one while matching would reach into the caching configuration while it is
     * being created.
     */
    private final transient CacheOperationSource operationSource = new AnnotationCacheOperationSource(false);
    private volatile Integer order;

    CacheableSamplingAdvisor(ListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
        this.advice = new CacheableInvocations.Interceptor(new CacheableReinvocation(beanFactory));
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }

    @Override
    public int getOrder() {
        Integer resolved = order;
        if (resolved == null) {
            BeanFactoryCacheOperationSourceAdvisor caching;
            try {
                caching = beanFactory.getBeanProvider(BeanFactoryCacheOperationSourceAdvisor.class).getIfUnique();
            } catch (BeansException inCreation) {
                // Asked while the caching advisor is being created: @EnableCaching's default, decided later.
                return Ordered.LOWEST_PRECEDENCE - 1;
            }
            int cacheOrder = caching == null ? Ordered.LOWEST_PRECEDENCE : caching.getOrder();
            resolved = cacheOrder == Ordered.HIGHEST_PRECEDENCE ? cacheOrder : cacheOrder - 1;
            order = resolved;
        }
        return resolved;
    }
}
