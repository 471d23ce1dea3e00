package dev.cdccache.client.spring.persistence;

import jakarta.persistence.EntityManagerFactory;
import java.util.Map;
import org.hibernate.SessionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;

/**
 * Gives every JPA {@code EntityManagerFactory} bean built by Spring ({@link AbstractEntityManagerFactoryBean}, which
 * Spring Boot's JPA support uses) the Hibernate setting that reports its sessions to the caches
 * ({@link HibernateSessionOpenings}), before the factory is built. A persistence context answers a load with an
 * entity it read earlier without asking the database; with its openings known, such a load is cached only if no
 * invalidation of its key was applied since the context opened. This is what makes JPA's open-in-view safe.
 *
 * <p>A factory whose properties already name another session listener keeps it; the start-up check of open-in-view
 * then names that factory ({@link #isTracked(EntityManagerFactory)}).
 */
public final class PersistenceContextTracking implements BeanPostProcessor {

    /** Hibernate's setting for a session listener created with every session. */
    public static final String SETTING = "hibernate.session.events.auto";

    private static final Logger LOG = LoggerFactory.getLogger(PersistenceContextTracking.class);

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof AbstractEntityManagerFactoryBean factory) {
            Map<String, Object> properties = factory.getJpaPropertyMap();
            Object current = properties.putIfAbsent(SETTING, HibernateSessionOpenings.class.getName());
            if (current != null && !isOurs(current)) {
                LOG.warn("EntityManagerFactory '{}' sets {}={}: its sessions are not reported to the caches, so a"
                        + " cached load answered from a persistence context opened earlier (open-in-view, or a"
                        + " context held across transactions) may be cached after a change was applied. Remove the"
                        + " setting, or close persistence contexts before loading through the caches",
                        beanName, SETTING, current);
            }
        }
        return bean;
    }

    /**
     * Whether the sessions of a factory are reported to the caches: a Hibernate factory built with
     * {@link HibernateSessionOpenings}.
     */
    public static boolean isTracked(EntityManagerFactory factory) {
        Object setting = factory.getProperties().get(SETTING);
        return setting != null && isOurs(setting) && isHibernate(factory);
    }

    private static boolean isOurs(Object setting) {
        return setting.equals(HibernateSessionOpenings.class.getName()) || setting == HibernateSessionOpenings.class;
    }

    private static boolean isHibernate(EntityManagerFactory factory) {
        try {
            return factory.unwrap(SessionFactory.class) != null;
        } catch (RuntimeException notHibernate) {
            return false;
        }
    }
}
