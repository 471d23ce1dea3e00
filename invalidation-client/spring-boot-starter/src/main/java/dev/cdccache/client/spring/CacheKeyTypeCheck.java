package dev.cdccache.client.spring;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.InvalidationClient;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.cache.CacheManager;
import org.springframework.cache.interceptor.CacheOperation;
import org.springframework.cache.interceptor.CacheOperationSource;
import org.springframework.cache.interceptor.SimpleKey;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Fails start-up when a caching annotation ({@code @Cacheable}, {@code @CachePut}, {@code @CacheEvict}) on one of
 * the client's caches builds keys of a type that can never be {@code equals} to the keys change events evict, e.g.
 * {@code @Cacheable("coupons") Coupon find(Integer id)} over a {@code BIGINT} id (events evict {@code Long} keys):
 * such entries would never be evicted and would be served stale until they expire.
 *
 * <p>Checked where the key type is known before any event arrives: annotations with Spring's default key
 * generation (no {@code key} expression, no key generator or cache resolver) resolved to the client's cache
 * manager. The key is then the only parameter, or a {@link SimpleKey} of several. Keys built by expressions are
 * checked by nobody; see docs/client.md. Runs once, after every singleton exists.
 */
final class CacheKeyTypeCheck implements SmartInitializingSingleton {

    private final ListableBeanFactory beans;
    private final ObjectProvider<CacheOperationSource> operationSources;
    private final ObjectProvider<InvalidationClient> client;

    CacheKeyTypeCheck(ListableBeanFactory beans, ObjectProvider<CacheOperationSource> operationSources,
            ObjectProvider<InvalidationClient> client) {
        this.beans = beans;
        this.operationSources = operationSources;
        this.client = client;
    }

    @Override
    public void afterSingletonsInstantiated() {
        CacheOperationSource source = operationSources.getIfUnique();
        if (source == null) {
            return; // no @EnableCaching
        }
        Map<String, CacheDefinition> definitions = client.getObject().config().caches().stream()
                .collect(Collectors.toMap(CacheDefinition::name, Function.identity()));
        boolean oursIsTheDefault = beans.getBeanProvider(CacheManager.class).getIfUnique() instanceof CdcCacheManager;
        for (String beanName : beans.getBeanDefinitionNames()) {
            Class<?> type = beans.getType(beanName, false);
            if (type == null) {
                continue;
            }
            Class<?> userClass = ClassUtils.getUserClass(type);
            for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
                Collection<CacheOperation> operations = source.getCacheOperations(method, userClass);
                if (operations == null) {
                    continue;
                }
                for (CacheOperation operation : operations) {
                    if (!usesDefaultKeys(operation) || !resolvesToOurs(operation, oursIsTheDefault)) {
                        continue;
                    }
                    for (String cacheName : operation.getCacheNames()) {
                        CacheDefinition definition = definitions.get(cacheName);
                        if (definition != null) {
                            check(definition, method, userClass);
                        }
                    }
                }
            }
        }
    }

    private static boolean usesDefaultKeys(CacheOperation operation) {
        return operation.getKey().isEmpty() && operation.getKeyGenerator().isEmpty()
                && operation.getCacheResolver().isEmpty();
    }

    private boolean resolvesToOurs(CacheOperation operation, boolean oursIsTheDefault) {
        String manager = operation.getCacheManager();
        if (manager.isEmpty()) {
            return oursIsTheDefault;
        }
        return beans.containsBean(manager) && beans.isTypeMatch(manager, CdcCacheManager.class);
    }

    private static void check(CacheDefinition definition, Method method, Class<?> userClass) {
        EvictedKeyTypes evicted = EvictedKeyTypes.of(definition);
        // What Spring's SimpleKeyGenerator builds: the parameter itself if there is exactly one.
        Class<?> cached = method.getParameterCount() == 1 ? method.getParameterTypes()[0] : SimpleKey.class;
        if (!evicted.canMatch(cached)) {
            throw new InvalidConfigurationException("caches." + definition.name() + ".key-type",
                    evicted.mismatch(userClass.getName() + "." + method.getName(), ClassUtils.resolvePrimitiveIfNecessary(cached)));
        }
    }
}
