package dev.cdccache.client.cache;

import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Tells the caches that a persistence context (a JPA {@code EntityManager}, a Hibernate {@code Session}) is open on
 * the calling thread. Such a context answers a load with an entity it read earlier, without asking the database: an
 * {@code EntityManager.find} of an entity it already manages, or a query whose rows it already manages. A load on
 * this thread may therefore return what the database held when the context opened, and while one is open every load
 * on this thread is stamped as of the opening of the oldest one: its value is cached only if no invalidation of its
 * key was applied since then. Transactions already stamp as of their begin; this covers a context opened before the
 * transaction (JPA's open-in-view, one context per web request) and loads outside any transaction.
 *
 * <p>While a context is open, a miss on this thread also never leads a single-flight load that other threads wait
 * for: they must not receive an entity this context read before a change whose invalidation they have seen.
 *
 * <pre>{@code
 * EntityManager em = factory.createEntityManager();
 * PersistenceContextReads.Opening opening = PersistenceContextReads.opened();   // before its first read
 * try {
 *     ...
 * } finally {
 *     em.close();
 *     opening.close();
 * }
 * }</pre>
 *
 * <p>The Spring Boot starter does this for every Hibernate session. Per thread: a context used on another thread
 * than the one that opened it is not seen there. Cheap: a thread-local array, read when a load is stamped.
 *
 * <p>Keep the {@link Opening} reachable for as long as the context (a field of the context, or of an object it
 * holds): an opening nobody holds any more counts as closed, so that a context that is dropped without being closed
 * (a query created and never run) does not hold back every later load on a pooled thread once it is collected.
 */
public final class PersistenceContextReads {

    /** {@link #openSince()} when no context is open on this thread: larger than any sequence value. */
    static final long NONE = Long.MAX_VALUE;

    /** The openings on this thread not known to be closed, oldest first; weak, see the class comment. */
    private static final ThreadLocal<Slot[]> OPEN = new ThreadLocal<>();

    private PersistenceContextReads() {
    }

    /**
     * A persistence context is opening on this thread; call it before the context's first read and close the result
     * when the context closes (on any thread).
     */
    public static Opening opened() {
        // Drawn before the context's first read: an invalidation applied after it was drawn is seen by the stamp.
        Opening opening = new Opening(InvalidationSequence.next(), Thread.currentThread());
        Slot[] open = prune(OPEN.get());
        if (open == null) {
            OPEN.set(new Slot[] {new Slot(opening)});
        } else {
            Slot[] grown = Arrays.copyOf(open, open.length + 1);
            grown[open.length] = new Slot(opening);
            OPEN.set(grown);
        }
        return opening;
    }

    /** Whether a persistence context is open on this thread. */
    public static boolean isOpen() {
        return openSince() != NONE;
    }

    /**
     * Persistence contexts a framework binds to threads other than the one that opened them: Spring binds a web
     * request's {@code EntityManager} to the thread that runs its asynchronous part, for example. A lookup names the
     * oldest opening of the contexts bound to the calling thread, or {@code null}.
     */
    @FunctionalInterface
    public interface BoundContexts {

        /** The oldest opening among the contexts bound to the calling thread, or {@code null} if none is bound. */
        Opening oldestBoundToThisThread();
    }

    private static final List<BoundContexts> LOOKUPS = new CopyOnWriteArrayList<>();

    /**
     * Adds a lookup of contexts bound to threads; loads on a thread stand for the oldest opening found by any lookup
     * or recorded on the thread. Close the result to remove it.
     */
    public static AutoCloseable addLookup(BoundContexts lookup) {
        Objects.requireNonNull(lookup, "lookup");
        LOOKUPS.add(lookup);
        return () -> LOOKUPS.remove(lookup);
    }

    /** The sequence value drawn when the oldest context open on this thread opened, or {@link #NONE}. */
    static long openSince() {
        long since = NONE;
        Slot[] open = OPEN.get();
        if (open != null) {
            open = keep(prune(open));
            if (open != null) {
                since = open[0].sequence;
            }
        }
        for (BoundContexts lookup : LOOKUPS) {
            Opening bound = lookup.oldestBoundToThisThread();
            if (bound != null && !bound.closed) {
                since = Math.min(since, bound.sequence);
            }
        }
        return since;
    }

    /** Stores the openings of this thread; {@code null} clears it, so nothing is left behind on pooled threads. */
    private static Slot[] keep(Slot[] open) {
        if (open == null) {
            OPEN.remove();
        } else {
            OPEN.set(open);
        }
        return open;
    }

    /** The openings still open, or {@code null} if none is. */
    private static Slot[] prune(Slot[] open) {
        if (open == null) {
            return null;
        }
        int openCount = 0;
        for (Slot slot : open) {
            if (slot.isOpen()) {
                openCount++;
            }
        }
        if (openCount == open.length) {
            return open;
        }
        if (openCount == 0) {
            return null;
        }
        Slot[] kept = new Slot[openCount];
        int i = 0;
        for (Slot slot : open) {
            if (slot.isOpen()) {
                kept[i++] = slot;
            }
        }
        return kept;
    }

    /** An opening as its thread keeps it: its sequence value, and the opening itself only while someone holds it. */
    private static final class Slot extends WeakReference<Opening> {

        final long sequence;

        Slot(Opening opening) {
            super(opening);
            this.sequence = opening.sequence;
        }

        /** Neither closed nor dropped by everyone who could have closed it. */
        boolean isOpen() {
            Opening opening = get();
            return opening != null && !opening.closed;
        }
    }

    /** One persistence context's opening; {@link #close()} it when the context closes. */
    public static final class Opening implements AutoCloseable {

        private final long sequence;
        private final Thread thread;
        private volatile boolean closed;

        private Opening(long sequence, Thread thread) {
            this.sequence = sequence;
            this.thread = thread;
        }

        /** The {@link InvalidationSequence} value drawn when the context opened. */
        public long openedAt() {
            return sequence;
        }

        /** Whether {@link #close()} was called. */
        public boolean isClosed() {
            return closed;
        }

        /** The context closed: loads on its thread no longer stand for its opening. Idempotent, any thread. */
        @Override
        public void close() {
            closed = true;
            if (Thread.currentThread() == thread) {
                keep(prune(OPEN.get()));
            }
        }

        @Override
        public String toString() {
            return "PersistenceContextReads.Opening[" + sequence + (closed ? ", closed]" : "]");
        }
    }
}
