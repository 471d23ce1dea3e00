package dev.cdccache.client.spring.persistence;

import dev.cdccache.client.cache.PersistenceContextReads;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.Field;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Consumer;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.orm.jpa.EntityManagerProxy;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ReflectionUtils;

/**
 * Gives every JPA {@code EntityManagerFactory} bean built by Spring ({@link AbstractEntityManagerFactoryBean}, which
 * Spring Boot's JPA support uses) the Hibernate setting that reports its sessions to the caches
 * ({@link HibernateSessionOpenings}), before the factory is built. A persistence context answers a load with an
 * entity it read earlier without asking the database; with its openings known, such a load is cached only if no
 * invalidation of its key was applied since the context opened. This is what makes JPA's open-in-view safe.
 *
 * <p>Each session's opening is also recorded by session, and found from the {@code EntityManagerHolder} Spring binds to
 * a thread: Spring binds a web request's {@code EntityManager} to the thread that runs the request's asynchronous
 * part too, and loads there stand for the session's opening as well.
 *
 * <p>A factory whose properties already name another session listener keeps it; the start-up check of open-in-view
 * then names that factory ({@link #isTracked(EntityManagerFactory)}).
 */
public final class PersistenceContextTracking implements BeanPostProcessor, DisposableBean {

    /** Hibernate's setting for a session listener created with every session. */
    public static final String SETTING = "hibernate.session.events.auto";

    private static final Logger LOG = LoggerFactory.getLogger(PersistenceContextTracking.class);

    /**
     * The opening of every open session of a tracked factory, by session; weak, so a session dropped without being
     * closed does not stay. Read when a load on a thread the session is bound to is stamped.
     */
    private static final Map<Object, PersistenceContextReads.Opening> SESSIONS =
            Collections.synchronizedMap(new WeakHashMap<>());

    private final AutoCloseable lookup = PersistenceContextReads.addLookup(
            PersistenceContextTracking::oldestBoundToThisThread);

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof AbstractEntityManagerFactoryBean factory) {
            Map<String, Object> properties = factory.getJpaPropertyMap();
            Object current = properties.putIfAbsent(SETTING, HibernateSessionOpenings.class.getName());
            if (current == null || isOurs(current)) {
                factory.setEntityManagerInitializer(withSessionsRecorded(currentInitializer(factory)));
            } else {
                LOG.warn("EntityManagerFactory '{}' sets {}={}: its sessions are not reported to the caches, so a"
                        + " cached load answered from a persistence context opened earlier (open-in-view, or a"
                        + " context held across transactions) may be cached after a change was applied. Remove the"
                        + " setting, or close persistence contexts before loading through the caches",
                        beanName, SETTING, current);
            }
        }
        return bean;
    }

    @Override
    public void destroy() throws Exception {
        lookup.close();
    }

    /**
     * Records each new session's opening by session, so that a thread its {@code EntityManager} is bound to later
     * (the asynchronous part of a web request, under open-in-view) finds it. Runs right after the session was
     * created, on the creating thread, where its listener left the opening.
     */
    private static Consumer<EntityManager> withSessionsRecorded(Consumer<EntityManager> applications) {
        Consumer<EntityManager> record = entityManager -> {
            PersistenceContextReads.Opening opening = HibernateSessionOpenings.takeCreated();
            if (opening != null) {
                SESSIONS.put(entityManager.unwrap(Session.class), opening);
            }
        };
        return applications == null ? record : record.andThen(applications);
    }

    /** The initializer the application set on the factory, if any; Spring offers no getter for it. */
    @SuppressWarnings("unchecked")
    private static Consumer<EntityManager> currentInitializer(AbstractEntityManagerFactoryBean factory) {
        Field field = ReflectionUtils.findField(AbstractEntityManagerFactoryBean.class, "entityManagerInitializer");
        if (field == null) {
            return null;
        }
        ReflectionUtils.makeAccessible(field);
        return (Consumer<EntityManager>) ReflectionUtils.getField(field, factory);
    }

    /** The oldest opening of the sessions whose {@code EntityManager} Spring bound to the calling thread. */
    static PersistenceContextReads.Opening oldestBoundToThisThread() {
        PersistenceContextReads.Opening oldest = null;
        for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
            if (resource instanceof EntityManagerHolder holder) {
                PersistenceContextReads.Opening opening = openingOf(holder.getEntityManager());
                if (opening != null && !opening.isClosed()
                        && (oldest == null || opening.openedAt() < oldest.openedAt())) {
                    oldest = opening;
                }
            }
        }
        return oldest;
    }

    private static PersistenceContextReads.Opening openingOf(EntityManager entityManager) {
        try {
            // Spring hands out a proxy that implements Session itself; the sessions are recorded by their target.
            EntityManager target = entityManager instanceof EntityManagerProxy proxy
                    ? proxy.getTargetEntityManager() : entityManager;
            return target == null ? null : SESSIONS.get(target.unwrap(Session.class));
        } catch (RuntimeException closedOrNotHibernate) {
            return null;
        }
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
