package dev.cdccache.client.spring;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.transaction.ConfigurableTransactionManager;

/**
 * Attaches the {@link ReadYourWritesListener} to every {@link ConfigurableTransactionManager} bean, including the
 * ones an application declares itself. Idempotent.
 */
final class ReadYourWritesRegistrar implements BeanPostProcessor, PriorityOrdered {

    private final ReadYourWritesListener listener;

    ReadYourWritesRegistrar(ReadYourWritesListener listener) {
        this.listener = listener;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ConfigurableTransactionManager manager
                && !manager.getTransactionExecutionListeners().contains(listener)) {
            manager.addListener(listener);
        }
        return bean;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
