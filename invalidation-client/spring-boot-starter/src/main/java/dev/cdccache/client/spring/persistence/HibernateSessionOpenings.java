package dev.cdccache.client.spring.persistence;

import dev.cdccache.client.cache.PersistenceContextReads;
import org.hibernate.SessionEventListener;

/**
 * Tells the caches when a Hibernate session (the persistence context behind a JPA {@code EntityManager}) opens and
 * closes, so that loads on its thread are stamped as of its opening ({@link PersistenceContextReads}). Hibernate
 * creates one per session, in the session's constructor, from the {@value PersistenceContextTracking#SETTING}
 * setting, which {@link PersistenceContextTracking} gives every {@code EntityManagerFactory} bean.
 *
 * <p>Not for applications to use directly; public because Hibernate instantiates it by name.
 */
public final class HibernateSessionOpenings implements SessionEventListener {

    private static final long serialVersionUID = 1L;

    private final transient PersistenceContextReads.Opening opening;

    /** Called by Hibernate as a session opens, on the opening thread and before its first read. */
    public HibernateSessionOpenings() {
        this.opening = PersistenceContextReads.opened();
    }

    @Override
    public void end() {
        if (opening != null) {
            opening.close();
        }
    }
}
