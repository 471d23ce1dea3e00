package dev.cdccache.client.spring;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Says at start-up that JPA's open-in-view defeats part of the stale-load protection. Spring Boot turns it on by
 * default for web applications: one persistence context lives for the whole request, and it answers a load with an
 * entity it read earlier in the request without asking the database. A {@code @Cacheable} method whose miss is
 * answered that way would store a row read before a change whose invalidation the client has already applied, and
 * serve it until the row changes again. Within one {@code @Transactional} method without open-in-view the starter
 * stamps loads as of the transaction's begin, which covers its persistence context.
 */
final class OpenInViewWarning {

    static final String MESSAGE = "spring.jpa.open-in-view is on: a cached method's load can be answered from the"
            + " request's persistence context with an entity read earlier in the same request, before a change the"
            + " cache has already been told about, and that old value would stay cached. Set"
            + " spring.jpa.open-in-view=false (see docs/client.md, 'Loads inside transactions')";

    private static final Logger LOG = LoggerFactory.getLogger(OpenInViewWarning.class);

    private static final List<String> OPEN_IN_VIEW_TYPES = List.of(
            "org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor",
            "org.springframework.orm.jpa.support.OpenEntityManagerInViewFilter");

    private OpenInViewWarning() {
    }

    /** Logs the warning if the context holds an open-in-view interceptor or filter; returns whether it did. */
    static boolean warnIfOn(ListableBeanFactory beanFactory) {
        List<String> found = new ArrayList<>();
        ClassLoader loader = OpenInViewWarning.class.getClassLoader();
        for (String type : OPEN_IN_VIEW_TYPES) {
            if (ClassUtils.isPresent(type, loader)) {
                for (String name : beanFactory.getBeanNamesForType(ClassUtils.resolveClassName(type, loader), true, false)) {
                    found.add(name);
                }
            }
        }
        if (found.isEmpty()) {
            return false;
        }
        LOG.warn("{} (beans {})", MESSAGE, found);
        return true;
    }
}
