package dev.cdccache.client.position;

import dev.cdccache.client.cache.ReadGate;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.metrics.LogThrottle;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-your-writes by commit position: a read floor makes every cache read wait until the cache has proven that
 * position applied, and bypass the cache if it has not within {@link #maxWait()}. So a value older than the floor
 * is never served, and nothing is stored that could not be proven fresh.
 *
 * <p><b>Floors.</b> The <em>instance floor</em> ({@link #raiseFloor}) applies to every read on this client: after
 * a write through this instance, its commit position is raised into it (the Spring Boot starter does it after each
 * committed transaction, with {@link #raiseFloorAfterCommit}), and every later read on any thread sees the write. A <em>request floor</em>
 * ({@link #withFloor}) applies to the reads of one thread until its scope is closed, e.g. a request carrying the
 * position another instance returned after a write. Floors only rise: the instance floor is the highest position
 * per source ever raised.
 *
 * <p><b>What a read does under a floor</b> (through {@code InvalidatingCache} and everything built on it):
 * <ul>
 *   <li>the floor is proven applied to the cache ({@link ProvenPositions}): served as usual ({@link
 *       Outcome#APPLIED}; counted only for reads that had to look, the first after a floor rose or under a
 *       request floor);</li>
 *   <li>a hit whose floor is not proven yet waits up to {@link #maxWait()}; proven then: served
 *       ({@link Outcome#AFTER_WAIT});</li>
 *   <li>still not proven, or a miss whose floor is not proven (a miss has nothing to gain from waiting): the read
 *       BYPASSES the cache ({@link Outcome#BYPASSED}): the loader reads the source, the value is returned and not
 *       stored, no load in flight is joined (it may have read before the write). {@code getIfPresent} and
 *       {@code lookup} return a miss. A value the application then stores with {@code putLoaded}/{@code put} follows
 *       the usual no-stale-populate rules.</li>
 * </ul>
 * The source must be the database written to (or a replica fenced for this floor): a loader reading a lagging
 * replica would return the old row even on a bypass.
 *
 * <p><b>If it goes wrong.</b> A floor that is never proven (the consumer stuck, Kafka down, the connector stopped or
 * sending no GTIDs, a domain no heartbeat carries) costs a bypass per read, never a stale value:
 * {@code cdc.client.read.floor{outcome="bypassed"}} climbs, {@code cdc.client.position.applied} stops moving, the
 * health details show the floor against each cache's proven position, and a WARN names the cache at most once a
 * minute once reads have bypassed a cache for 10 s.
 *
 * <p>Thread-safe. Reads without any floor, or under an instance floor already proven for the cache, pay one
 * volatile read.
 */
public final class ReadYourWrites {

    /** {@link Gate#state} of an open gate; closings are numbered from 1. */
    private static final long GATE_OPEN = 0;
    private static final AtomicLongFieldUpdater<Gate> GATE_STATE = AtomicLongFieldUpdater.newUpdater(Gate.class,
            "state");

    private static final Logger LOG = LoggerFactory.getLogger(ReadYourWrites.class);
    /** Bypassing for longer than this is reported: the heartbeat interval and a position check, many times over. */
    private static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** How a read under a floor was served, the {@code outcome} tag of {@code cdc.client.read.floor}. */
    public enum Outcome {
        /** The floor was proven applied when the read looked. */
        APPLIED("applied"),
        /** The floor was proven applied while the read waited. */
        AFTER_WAIT("after_wait"),
        /** The floor was not proven: the read bypassed the cache. */
        BYPASSED("bypassed");

        private final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }

        /** The metric tag value. */
        public String tag() {
            return tag;
        }
    }

    /** A request floor set on one thread; closing it restores the floor the thread had before. */
    public final class Scope implements AutoCloseable {
        private final CommitPosition previous;
        private final Thread owner = Thread.currentThread();
        private boolean closed;

        private Scope(CommitPosition previous) {
            this.previous = previous;
        }

        /** Ends this request floor; must be called on the thread that opened it. Idempotent. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            if (Thread.currentThread() != owner) {
                throw new IllegalStateException("a request floor must be closed on the thread that opened it ("
                        + owner.getName() + ")");
            }
            closed = true;
            if (previous == null) {
                request.remove();
            } else {
                request.set(previous);
            }
            requestScopes.decrementAndGet();
        }
    }

    private final ProvenPositions proven;
    private final long maxWaitNanos;
    private final Duration maxWait;
    private final Timer waits;
    private final Map<String, Gate> gates;
    private final ThreadLocal<CommitPosition> request = new ThreadLocal<>();
    /** Request floors open on any thread: while 0, reads do not look up the thread-local. */
    private final AtomicInteger requestScopes = new AtomicInteger();
    private final LogThrottle bypassLog = new LogThrottle(System::currentTimeMillis, 60_000);
    private volatile CommitPosition floor = CommitPosition.NONE;
    /** Numbers every closing of a gate, so that a read can tell whether its gate was closed again meanwhile. */
    private final AtomicLong closings = new AtomicLong();
    /** Test hooks: run by a read that proved its floor, before it opens its gate, and right after it did. */
    private volatile Runnable beforeGateOpens = () -> { };
    private volatile Runnable afterGateOpened = () -> { };
    /** Test hook: run by a fresh commit that dropped the proofs, before it replaces the floor's sequence. */
    private volatile Runnable beforeFloorRestarts = () -> { };

    ReadYourWrites(ProvenPositions proven, Duration maxWait, ClientMetrics metrics) {
        this.proven = proven;
        this.maxWait = maxWait;
        this.maxWaitNanos = maxWait.toNanos();
        this.waits = metrics.readFloorWaits();
        Map<String, Gate> byCache = new java.util.HashMap<>();
        for (String cache : proven.caches()) {
            Gate gate = new Gate(cache);
            byCache.put(cache, gate);
            metrics.bindReadFloor(cache, Outcome.APPLIED.tag(), gate.applied);
            metrics.bindReadFloor(cache, Outcome.AFTER_WAIT.tag(), gate.afterWait);
            metrics.bindReadFloor(cache, Outcome.BYPASSED.tag(), gate.bypassed);
        }
        this.gates = Map.copyOf(byCache);
    }

    /**
     * Raises the instance floor to cover {@code written} (a position this instance wrote): every later read on this
     * client, on any thread, is served only once its cache has proven it applied.
     */
    public void raiseFloor(CommitPosition written) {
        CommitPosition current;
        CommitPosition raised;
        do {
            current = floor;
            raised = current.max(written);
        } while (raised != current && !compareAndSetFloor(current, raised));
    }

    /**
     * {@link #raiseFloor} for a transaction this instance has JUST committed (the Spring Boot starter calls it after
     * each commit), never for a position read from a request or kept from earlier: a fresh commit whose sequence is
     * not above what is already proven for its own server means that server's GTID numbering started over
     * ({@code RESET MASTER}, a restored server), and the proofs of the old numbering would cover the write before
     * it is applied. They are dropped then (counted in {@code cdc.client.position.resets}), so reads under a floor
     * bypass the caches until the new numbering is proven.
     */
    public void raiseFloorAfterCommit(CommitPosition committed) {
        // Dropping the proofs and replacing the floor's sequence are one step for raises of the floor: a commit of
        // the new numbering right after it (0-1-6 after 0-1-5) finds the proofs dropped and raises the floor
        // normally, which would leave the floor as it was (the old numbering's sequence is higher) and then be
        // undone by the replacing, leaving that write unwaited for.
        synchronized (this) {
            // The floor's sequences of the committed sources that are above the proofs are writes not proven yet,
            // of this numbering or of the old one: a commit not above the proofs need not be a numbering that started
            // over, its after-commit callback may just have run after its change was proven, and after the callback
            // of a later write that raised the floor. Replacing must never lower the floor below such a write.
            CommitPosition unproven = floor.filtered(c -> committed.components().stream()
                    .anyMatch(mine -> mine.source().equals(c.source()))
                    && c.sequence() > proven.highestProven(c.source()));
            if (proven.freshCommit(committed)) {
                beforeFloorRestarts.run();
                restartFloor(committed, unproven);
                return;
            }
        }
        raiseFloor(committed);
    }

    /**
     * The old numbering's sequences in the instance floor can never be reached in order: the committed sources'
     * components are replaced (not raised), except by the {@code unproven} ones, which were above the proofs (a
     * write not proven yet: the floor stays above it); every gate closes even if the floor did not move, since the
     * proofs that kept them open were just dropped.
     */
    private synchronized void restartFloor(CommitPosition committed, CommitPosition unproven) {
        floor = floor.replacing(committed).max(unproven);
        gates.values().forEach(Gate::close);
    }

    private synchronized boolean compareAndSetFloor(CommitPosition expected, CommitPosition next) {
        if (floor != expected) {
            return false;
        }
        floor = next;
        gates.values().forEach(Gate::close); // after the floor moved: see Gate#state
        return true;
    }

    /** The instance floor: the highest position per source raised so far ({@link CommitPosition#NONE} if none). */
    public CommitPosition floor() {
        return floor;
    }

    /**
     * Sets a request floor on the current thread until the returned scope is closed (on this thread): its reads are
     * served only once their cache has proven {@code position} applied, as well as the instance floor. Scopes nest;
     * an inner one covers the outer one's position too.
     */
    public Scope withFloor(CommitPosition position) {
        CommitPosition previous = request.get();
        request.set(previous == null ? position : previous.max(position));
        requestScopes.incrementAndGet();
        gates.values().forEach(Gate::close); // after the count moved: see Gate#state
        return new Scope(previous);
    }

    /** The floor the current thread's reads are held to: the instance floor and its request floor, if any. */
    public CommitPosition currentFloor() {
        CommitPosition instance = floor;
        CommitPosition mine = requestScopes.get() > 0 ? request.get() : null;
        return mine == null ? instance : instance.max(mine);
    }

    /** Whether {@code cache} has proven {@code position} applied now. */
    public boolean isApplied(String cache, CommitPosition position) {
        return proven.isProven(cache, position);
    }

    /**
     * Waits until {@code cache} has proven {@code position} applied (every change up to it, on every partition
     * feeding the cache, has had its evictions done), at most {@code maxWait}.
     *
     * @return whether it has; {@code false} also if interrupted (the interrupt stays set)
     * @throws IllegalArgumentException if no such cache is configured
     */
    public boolean awaitApplied(String cache, CommitPosition position, Duration maxWait) {
        return proven.awaitProven(cache, position, maxWait.toNanos());
    }

    /** {@link #awaitApplied(String, CommitPosition, Duration)} for every cache, within one {@code maxWait} overall. */
    public boolean awaitApplied(CommitPosition position, Duration maxWait) {
        long deadline = System.nanoTime() + maxWait.toNanos();
        for (String cache : proven.caches()) {
            if (!proven.awaitProven(cache, position, Math.max(0, deadline - System.nanoTime()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * What {@code cache} has proven applied, per GTID domain (MariaDB domain id, or MySQL server UUID): the highest
     * sequence up to which a position check proved every partition of its topics applied. Empty until the first
     * check after a heartbeat that carries a GTID.
     */
    public Map<String, Long> appliedPosition(String cache) {
        return proven.provenByDomain(cache);
    }

    /** How long a read under an unproven floor waits before it bypasses the cache. */
    public Duration maxWait() {
        return maxWait;
    }

    /** How many reads of {@code cache} under a floor were served with {@code outcome}. */
    /** When the reads of {@code cache} started bypassing without a read admitted since ({@link System#nanoTime}), 0 if not. */
    long bypassingSince(String cache) {
        return gate(cache).bypassingSince;
    }

    public long count(String cache, Outcome outcome) {
        Gate gate = gate(cache);
        return switch (outcome) {
            case APPLIED -> gate.applied.sum();
            case AFTER_WAIT -> gate.afterWait.sum();
            case BYPASSED -> gate.bypassed.sum();
        };
    }

    /** The gate a cache asks on every read. */
    Gate gate(String cache) {
        Gate gate = gates.get(cache);
        if (gate == null) {
            throw new IllegalArgumentException("No cache '" + cache + "'; configured: " + gates.keySet());
        }
        return gate;
    }

    /** Test hooks around a read opening its gate (see ReadYourWritesTest). */
    void onGateOpening(Runnable before, Runnable after) {
        beforeGateOpens = before;
        afterGateOpened = after;
    }

    /** Test hook between a fresh commit's dropping of the proofs and its replacing of the floor's sequence. */
    void onFloorRestarting(Runnable hook) {
        beforeFloorRestarts = hook;
    }

    /** One cache's read gate. */
    final class Gate implements ReadGate {
        private final String cache;
        final LongAdder applied = new LongAdder();
        final LongAdder afterWait = new LongAdder();
        final LongAdder bypassed = new LongAdder();
        /**
         * {@link #GATE_OPEN} while reads may skip looking: no request floor is open and the instance floor is
         * proven for this cache; otherwise the number of the closing that closed it. The one field a read without a
         * floor reads. Whoever moves the instance floor or opens a request floor closes every gate AFTER moving them,
         * with a new number; a look notes the state BEFORE it reads the floors, and opens the gate only if the state
         * is still what it noted (compare-and-set). So a gate is never open, not even for an instant, while a floor
         * raised before a read started is unproven: a raise between the look's reading and its opening makes the
         * opening fail. (Package-visible for the field updater.)
         */
        volatile long state = GATE_OPEN;
        /** When reads began to bypass (System.nanoTime), 0 while they do not. */
        private volatile long bypassingSince;

        Gate(String cache) {
            this.cache = cache;
        }

        @Override
        public boolean admits(boolean mayWait) {
            return state == GATE_OPEN || look(mayWait);
        }

        @Override
        public boolean isOpen() {
            return state == GATE_OPEN;
        }

        void close() {
            state = closings.incrementAndGet();
        }

        /** Opens the gate if nobody closed it since the look noted {@code seen} and no request floor is open. */
        private void reopen(long seen) {
            bypassingSince = 0; // a read admitted: a later bypass starts a new episode, its WARN counts from there
            beforeGateOpens.run();
            if (requestScopes.get() == 0 && GATE_STATE.compareAndSet(this, seen, GATE_OPEN)) {
                afterGateOpened.run();
            }
        }

        private boolean look(boolean mayWait) {
            long seen = state; // before the floors are read: see #state
            CommitPosition instance = floor;
            CommitPosition mine = requestScopes.get() > 0 ? request.get() : null;
            CommitPosition wanted = mine == null ? instance : instance.max(mine);
            if (wanted.isEmpty()) {
                reopen(seen); // the request floor that closed the gate has ended
                return true;
            }
            if (proven.isProven(cache, wanted)) {
                reopen(seen); // wanted covers instance: proven too
                applied.increment();
                return true;
            }
            if (mayWait && maxWaitNanos > 0) {
                long start = System.nanoTime();
                boolean applied = proven.awaitProven(cache, wanted, maxWaitNanos);
                waits.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                if (applied) {
                    reopen(seen);
                    afterWait.increment();
                    return true;
                }
            }
            bypassed.increment();
            bypassing(wanted);
            return false;
        }

        /**
         * A bypass or two after a write are expected (a floor is proven by the next heartbeat and position check);
         * bypasses for longer than {@link #STUCK_NANOS} mean the proof is stuck: WARN, at most once a minute.
         */
        private void bypassing(CommitPosition wanted) {
            long now = System.nanoTime();
            long since = bypassingSince;
            if (since == 0) {
                bypassingSince = now;
                return;
            }
            if (now - since > STUCK_NANOS) {
                long suppressed = bypassLog.admit(cache);
                if (suppressed != LogThrottle.HELD_BACK) {
                    LOG.warn("Reads of cache '{}' have bypassed it for {} s: its proven position {} does not cover the"
                            + " read floor {}. Values are loaded from the source and not cached until it does; check"
                            + " the client's freshness (health) and that the connector's heartbeats carry GTIDs",
                            cache, TimeUnit.NANOSECONDS.toSeconds(now - since), proven.provenByDomain(cache), wanted);
                }
            }
        }
    }
}
