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

    /** The opening of the session created last on this thread, until the factory's initializer takes it. */
    private static final ThreadLocal<PersistenceContextReads.Opening> CREATED = new ThreadLocal<>();

    /** Called by Hibernate as a session opens, on the opening thread and before its first read. */
    public HibernateSessionOpenings() {
        this.opening = PersistenceContextReads.opened();
        CREATED.set(opening);
    }

    /** The opening of the session just created on this thread, once; {@code null} if none is waiting. */
    static PersistenceContextReads.Opening takeCreated() {
        PersistenceContextReads.Opening created = CREATED.get();
        CREATED.remove();
        return created;
    }

    @Override
    public void end() {
        if (opening != null) {
            opening.close();
        }
    }
}
