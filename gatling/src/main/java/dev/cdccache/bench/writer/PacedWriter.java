package dev.cdccache.bench.writer;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Commits row changes with plain JDBC, outside any service, at a set rate (or as fast as possible), from a
 * few threads with a connection each. Change {@code k} is due at {@code start + k / rate}: a thread that
 * falls behind catches up instead of lowering the rate (an open model), and the achieved rate is
 * reported. After each change's {@code commit()} returns, the commit log gets {@code System.nanoTime()}:
 * the client-side commit stamp lag and staleness are measured from.
 */
public final class PacedWriter {

    /** One change: executes and commits change number {@code sequence} on {@code connection}. */
    @FunctionalInterface
    public interface Change {
        void apply(Connection connection, long sequence) throws SQLException;
    }

    /** Receives each change's sequence number and commit stamp, on the writing thread. */
    @FunctionalInterface
    public interface CommitLog {
        void committed(long sequence, long commitNanos);
    }

    /** What a run did. */
    public record Result(long changes, long failures, double seconds) {
        public double achievedRate() {
            return seconds > 0 ? changes / seconds : 0;
        }
    }

    /** Opens the connections the writer threads use. */
    @FunctionalInterface
    public interface ConnectionFactory {
        Connection open() throws SQLException;
    }

    private final ConnectionFactory connections;
    private final int threads;
    private final AtomicLong sequences = new AtomicLong();

    public PacedWriter(ConnectionFactory connections, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1");
        }
        this.connections = connections;
        this.threads = threads;
    }

    /**
     * Commits {@code count} changes at {@code ratePerSecond} ({@code <= 0}: back to back) and returns when
     * all are done or {@code stop} says so. Sequence numbers continue across runs of this writer, from 1.
     */
    public Result run(double ratePerSecond, long count, Change change, CommitLog log, java.util.function.BooleanSupplier stop)
            throws InterruptedException {
        long first = sequences.get() + 1;
        long last = first + count - 1;
        AtomicLong next = new AtomicLong(first);
        AtomicLong done = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicReference<Throwable> fatal = new AtomicReference<>();
        long start = System.nanoTime();
        double nanosPerChange = ratePerSecond > 0 ? TimeUnit.SECONDS.toNanos(1) / ratePerSecond : 0;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try (Connection connection = connections.open()) {
                    long sequence;
                    while ((sequence = next.getAndIncrement()) <= last && !stop.getAsBoolean()) {
                        long due = start + (long) ((sequence - first) * nanosPerChange);
                        long wait;
                        while ((wait = due - System.nanoTime()) > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        try {
                            change.apply(connection, sequence);
                            log.committed(sequence, System.nanoTime());
                            done.incrementAndGet();
                        } catch (SQLException e) {
                            failures.incrementAndGet();
                        }
                    }
                } catch (SQLException | RuntimeException e) {
                    fatal.compareAndSet(null, e);
                }
            }, "paced-writer-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        sequences.set(last);
        if (fatal.get() != null) {
            throw new IllegalStateException("writer failed: " + fatal.get(), fatal.get());
        }
        return new Result(done.get(), failures.get(), (System.nanoTime() - start) / 1e9);
    }

    /** The last sequence number handed out. */
    public long lastSequence() {
        return sequences.get();
    }
}
