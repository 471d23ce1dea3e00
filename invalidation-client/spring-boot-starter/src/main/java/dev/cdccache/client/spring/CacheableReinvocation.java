package dev.cdccache.client.spring;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionManager;
import org.springframework.transaction.annotation.TransactionManagementConfigurer;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Calls a sampled {@code @Cacheable} method again, on the consistency sampler's thread: on the target bean itself, not
 * through its proxy, so neither the cache (nothing is looked up or stored) nor any other advice of the method runs;
 * with the arguments of the sampled invocation; inside a read-only transaction of the transaction manager a
 * {@code @Transactional} on the method would use, when there is one. The result is compared with the cached value as
 * Spring caches it: an {@code Optional}'s content, {@code null} for an empty one.
 *
 * <p>The transaction manager: the one the method's {@code @Transactional} names (qualifier or bean name), if it is a
 * {@link PlatformTransactionManager} bean; otherwise the one a {@link TransactionManagementConfigurer} bean designates;
 * otherwise the only or the {@code @Primary} {@link PlatformTransactionManager} bean. With none of these (no
 * transaction manager, or several without a primary one, or a reactive one) the method runs without a transaction.
 * The choice is made once per method, on the sampler's thread.
 */
final class CacheableReinvocation {

    private static final Logger LOG = LoggerFactory.getLogger(CacheableReinvocation.class);
    private static final boolean TRANSACTIONS_PRESENT = ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionTemplate", CacheableReinvocation.class.getClassLoader());

    private final ListableBeanFactory beanFactory;
    /** Per method: how its calls are wrapped (a read-only transaction, or none). */
    private final Map<Method, Function<Supplier<Object>, Object>> wrappers = new ConcurrentHashMap<>();

    CacheableReinvocation(ListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** The loader that re-reads {@code drawn}: the method called again; the key it is given is not used. */
    Function<Object, Object> loader(CacheableInvocations.Drawn drawn) {
        return key -> {
            Object result = wrapper(drawn.target(), drawn.method()).apply(() -> call(drawn));
            return result instanceof Optional<?> optional ? optional.orElse(null) : result;
        };
    }

    private static Object call(CacheableInvocations.Drawn drawn) {
        try {
            return AopUtils.invokeJoinpointUsingReflection(drawn.target(), drawn.method(), drawn.arguments());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            // A checked exception of the method: the sampler counts the sample inconclusive.
            throw new IllegalStateException("re-invocation of " + drawn.method() + " failed", e);
        }
    }

    private Function<Supplier<Object>, Object> wrapper(Object target, Method method) {
        return wrappers.computeIfAbsent(method, m -> {
            PlatformTransactionManager manager = TRANSACTIONS_PRESENT
                    ? Transactions.managerFor(beanFactory, m, AopUtils.getTargetClass(target)) : null;
            if (manager == null) {
                LOG.debug("Sampled calls of {} run without a transaction: no transaction manager to use", m);
                return Supplier::get;
            }
            TransactionTemplate template = new TransactionTemplate(manager);
            template.setReadOnly(true);
            template.setName("cdc-consistency-sample");
            return call -> template.execute(status -> call.get());
        });
    }

    /** Kept apart so that nothing of spring-tx is loaded when it is not on the class path. */
    private static final class Transactions {

        static PlatformTransactionManager managerFor(ListableBeanFactory beanFactory, Method method,
                Class<?> targetClass) {
            TransactionAttributeSource attributes = beanFactory.getBeanProvider(TransactionAttributeSource.class)
                    .getIfUnique();
            TransactionAttribute attribute = attributes == null ? null
                    : attributes.getTransactionAttribute(method, targetClass);
            if (attribute != null && StringUtils.hasText(attribute.getQualifier())) {
                try {
                    TransactionManager named = BeanFactoryAnnotationUtils.qualifiedBeanOfType(beanFactory,
                            TransactionManager.class, attribute.getQualifier());
                    return named instanceof PlatformTransactionManager platform ? platform : null;
                } catch (RuntimeException e) {
                    return null; // the method's own transactions would fail too
                }
            }
            TransactionManagementConfigurer configurer = beanFactory
                    .getBeanProvider(TransactionManagementConfigurer.class).getIfUnique();
            if (configurer != null) {
                return configurer.annotationDrivenTransactionManager() instanceof PlatformTransactionManager platform
                        ? platform : null;
            }
            return beanFactory.getBeanProvider(PlatformTransactionManager.class).getIfUnique();
        }
    }
}
