package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;

/**
 * The start-up warning for open-in-view with a persistence context the caches are not told about; a Hibernate factory
 * whose sessions are reported is covered with a real one in {@code OpenInViewPersistenceContextIT}.
 */
class OpenInViewWarningTest {

    @Test
    void openInViewWithAFactoryWhoseSessionsAreNotReportedIsWarnedAbout() {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("openEntityManagerInViewInterceptor",
                new RootBeanDefinition(OpenEntityManagerInViewInterceptor.class));
        beanFactory.registerSingleton("entityManagerFactory", factoryWithProperties(Map.of()));

        assertThat(OpenInViewWarning.warnIfOn(beanFactory)).isTrue();
    }

    @Test
    void aFactoryNamingTheListenerButNotBuiltByHibernateIsStillWarnedAbout() {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("openEntityManagerInViewInterceptor",
                new RootBeanDefinition(OpenEntityManagerInViewInterceptor.class));
        beanFactory.registerSingleton("entityManagerFactory", factoryWithProperties(Map.of(
                "hibernate.session.events.auto", "dev.cdccache.client.spring.persistence.HibernateSessionOpenings")));

        assertThat(OpenInViewWarning.warnIfOn(beanFactory)).isTrue();
    }

    @Test
    void aContextWithoutOpenInViewIsNotReported() {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerSingleton("entityManagerFactory", factoryWithProperties(Map.of()));

        assertThat(OpenInViewWarning.warnIfOn(beanFactory)).isFalse();
    }

    /** An entity manager factory of another JPA provider: it has properties and unwraps to nothing Hibernate's. */
    private static EntityManagerFactory factoryWithProperties(Map<String, Object> properties) {
        return (EntityManagerFactory) Proxy.newProxyInstance(OpenInViewWarningTest.class.getClassLoader(),
                new Class<?>[] {EntityManagerFactory.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperties" -> properties;
                    case "unwrap" -> throw new jakarta.persistence.PersistenceException("not " + args[0]);
                    case "toString" -> "another provider's factory";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
