package dev.cdccache.client.spring;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.transaction.ConfigurableTransactionManager;

/**
 * Attaches {@link CacheTransactionListener} to every {@link ConfigurableTransactionManager} bean, including the
 * ones an application declares itself (Spring Boot's transaction manager customizers reach only the managers it
 * auto-configures). Idempotent.
 */
final class CacheTransactionListenerRegistrar implements BeanPostProcessor, PriorityOrdered {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ConfigurableTransactionManager manager
                && !manager.getTransactionExecutionListeners().contains(CacheTransactionListener.INSTANCE)) {
            manager.addListener(CacheTransactionListener.INSTANCE);
        }
        return bean;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
