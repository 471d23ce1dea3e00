package dev.cdccache.client.spring;

import dev.cdccache.client.spring.persistence.PersistenceContextTracking;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Says at start-up when JPA's open-in-view defeats part of the stale-load protection. Spring Boot turns it on by
 * default for web applications: one persistence context lives for the whole request, and it answers a load with an
 * entity it read earlier in the request without asking the database. The starter reports Hibernate sessions to the
 * caches, which then stamp such loads as of the session's opening ({@link PersistenceContextTracking}); a factory
 * whose sessions are not reported (another JPA provider, or a factory with its own session listener) would let a
 * {@code @Cacheable} method store a row read before a change whose invalidation the client has already applied, and
 * serve it until the row changes again.
 */
final class OpenInViewWarning {

    static final String MESSAGE = "spring.jpa.open-in-view is on and the persistence contexts of %s are not reported"
            + " to the caches: a cached method's load can be answered from the request's persistence context with an"
            + " entity read earlier in the same request, before a change the cache has already been told about, and"
            + " that old value would stay cached. Use Hibernate without a session listener of its own, or set"
            + " spring.jpa.open-in-view=false (see docs/client.md, 'Loads inside transactions')";

    private static final Logger LOG = LoggerFactory.getLogger(OpenInViewWarning.class);

    private static final List<String> OPEN_IN_VIEW_TYPES = List.of(
            "org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor",
            "org.springframework.orm.jpa.support.OpenEntityManagerInViewFilter");

    private static final String ENTITY_MANAGER_FACTORY = "jakarta.persistence.EntityManagerFactory";

    private OpenInViewWarning() {
    }

    /**
     * Logs the warning if the context holds an open-in-view interceptor or filter and an entity manager factory whose
     * sessions are not reported to the caches; returns whether it did.
     */
    static boolean warnIfOn(ListableBeanFactory beanFactory) {
        ClassLoader loader = OpenInViewWarning.class.getClassLoader();
        boolean openInView = false;
        for (String type : OPEN_IN_VIEW_TYPES) {
            if (ClassUtils.isPresent(type, loader)) {
                openInView |= beanFactory.getBeanNamesForType(ClassUtils.resolveClassName(type, loader), true, false)
                        .length > 0;
            }
        }
        if (!openInView) {
            return false;
        }
        List<String> untracked = untrackedFactories(beanFactory, loader);
        if (untracked.isEmpty()) {
            LOG.debug("open-in-view is on; loads through its persistence contexts are stamped as of their opening");
            return false;
        }
        LOG.warn(String.format(MESSAGE, untracked));
        return true;
    }

    /** The entity manager factory beans whose sessions are not reported to the caches. */
    private static List<String> untrackedFactories(ListableBeanFactory beanFactory, ClassLoader loader) {
        List<String> untracked = new ArrayList<>();
        if (!ClassUtils.isPresent(ENTITY_MANAGER_FACTORY, loader)) {
            return untracked;
        }
        boolean trackingPresent = ClassUtils.isPresent("org.hibernate.SessionEventListener", loader);
        Map<String, ?> factories = beanFactory.getBeansOfType(ClassUtils.resolveClassName(ENTITY_MANAGER_FACTORY,
                loader), true, false);
        factories.forEach((name, factory) -> {
            if (!trackingPresent || !PersistenceContextTracking.isTracked(
                    (jakarta.persistence.EntityManagerFactory) factory)) {
                untracked.add(name);
            }
        });
        return untracked;
    }
}
