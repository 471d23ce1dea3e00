package io.debezium.connector.base;

import io.debezium.config.ConfigurationDefaults;
import io.debezium.pipeline.Sizeable;
import io.debezium.util.LoggingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The hand-over between Debezium's binlog reader (the producer, {@link #enqueue}) and the engine's polling thread
 * (the consumer, {@link #poll}), written by this project. It stands in for Debezium 3.5's
 * {@code io.debezium.connector.base.ChangeEventQueue}: the application's own classes come before its libraries on
 * the class path (in the executable jar as in tests), so Debezium's connector code, which creates its queue
 * through {@link Builder}, gets this one. Only the class name and the members Debezium's code calls are Debezium's;
 * {@code ChangeEventQueueShadowTest} checks that every such member exists here with the descriptor Debezium's
 * bytecode links against.
 *
 * <p>Why it exists (docs/connector.md, "Throughput of large transactions and idle cost"):
 * <ul>
 *   <li>Debezium 3.5's {@code poll()} collects records until its batch is full or its poll interval is over, so
 *       every change waits up to the interval before it is even handed to the producer. This queue
 *       hands over whatever is queued as soon as there is anything. Batches still fill under load: while the
 *       consumer publishes one batch, the reader keeps queueing, and the next poll takes up to
 *       {@code maxBatchSize} of it at once.</li>
 *   <li>Debezium 3.5 waits for the rest of the interval in whole milliseconds, so in the last millisecond of each
 *       interval it re-checks without waiting: ~15% of a core with no traffic at all. Here an empty poll sleeps
 *       once, to a {@link System#nanoTime()} deadline.</li>
 * </ul>
 *
 * <p>Contract kept for Debezium's callers: records come out in the order they went in; {@link #enqueue} blocks
 * while the queue holds {@code maxQueueSize} records or {@code maxQueueSizeInBytes} bytes (back-pressure on the
 * binlog reader) and throws {@link InterruptedException} when its thread is interrupted; with buffering on, the
 * latest record is held back until the next one arrives or {@link #flushBuffer} releases it (Debezium marks the
 * last record of a snapshot that way); a failure reported through {@link #producerException} is thrown by the next
 * (or the waiting) {@link #poll}; an empty poll returns an empty list after the poll interval (at most Debezium's
 * {@link ConfigurationDefaults#RETURN_CONTROL_INTERVAL}), so that the engine keeps control of its thread.
 *
 * <p>Thread-safety: any number of producers and one consumer; the counters behind the
 * {@link ChangeEventQueueMetrics} methods may be read from any thread (JMX).
 *
 * @param <T> the queued records
 */
public class ChangeEventQueue<T extends Sizeable> implements ChangeEventQueueMetrics {

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the queue stops being empty, or a producer failed: a waiting poll has something to do. */
    private final Condition pollCanReturn = lock.newCondition();
    /** Signalled when a poll took records: a producer blocked on a full queue may go on. */
    private final Condition spaceFreed = lock.newCondition();

    private final QueueProvider<T> records;
    private final long emptyPollNanos;
    private final int maxBatchSize;
    private final int maxQueueSize;
    private final long maxQueueSizeInBytes;
    private final Supplier<LoggingContext.PreviousContext> loggingContext;
    /** Sizes of the queued records in queue order, only when a byte limit is set. */
    private final SizeRing sizes;

    // Written under the lock, read without it by the metrics.
    private volatile int queued;
    private volatile long queuedBytes;

    private volatile boolean buffering;
    private final AtomicReference<T> heldBack = new AtomicReference<>();
    private volatile RuntimeException producerFailure;

    private ChangeEventQueue(Builder<T> builder) {
        this.maxBatchSize = builder.maxBatchSize;
        this.maxQueueSize = builder.maxQueueSize;
        if (maxBatchSize < 1 || maxQueueSize < 1) {
            throw new IllegalArgumentException("max.batch.size (" + maxBatchSize + ") and max.queue.size ("
                    + maxQueueSize + ") must be positive");
        }
        Duration interval = Objects.requireNonNull(builder.pollInterval, "pollInterval");
        Duration cap = ConfigurationDefaults.RETURN_CONTROL_INTERVAL;
        this.emptyPollNanos = (interval.compareTo(cap) < 0 ? interval : cap).toNanos();
        this.maxQueueSizeInBytes = builder.maxQueueSizeInBytes;
        this.loggingContext = builder.loggingContextSupplier;
        this.buffering = builder.buffering;
        this.records = builder.queueProvider != null ? builder.queueProvider : new DefaultQueueProvider<>(maxQueueSize);
        this.sizes = maxQueueSizeInBytes > 0 ? new SizeRing(maxQueueSize) : null;
    }

    /**
     * Queues a record for {@link #poll}, waiting while the queue is full. With buffering on, queues the record
     * held back before and holds this one back instead. A {@code null} record is ignored.
     *
     * @throws InterruptedException if the calling thread is interrupted before or while it waits
     */
    public void enqueue(T record) throws InterruptedException {
        if (record == null) {
            return;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        T toQueue = buffering ? heldBack.getAndSet(record) : record;
        if (toQueue != null) {
            put(toQueue, true);
        }
    }

    /**
     * Queues the record held back by buffering, if any, after applying {@code modifier} to it (Debezium marks the
     * last record of a snapshot this way).
     */
    public void flushBuffer(Function<T, T> modifier) throws InterruptedException {
        T last = heldBack.getAndSet(null);
        if (last != null) {
            put(modifier.apply(last), true);
        }
    }

    /**
     * Stops holding records back. Debezium flushes the buffer first; a record still held back is queued as it is
     * (without waiting for room, so the queue may hold one record more than its size), because a record left
     * behind would never be polled.
     */
    public void disableBuffering() {
        buffering = false;
        T last = heldBack.getAndSet(null);
        if (last != null) {
            lock.lock();
            try {
                add(last);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while queueing the record held back", e);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Starts holding the latest record back until the next one arrives. */
    public void enableBuffering() {
        buffering = true;
    }

    /** Whether the latest record is held back. */
    public boolean isBuffered() {
        return buffering;
    }

    /**
     * Reports a failure of the producer side; the next {@link #poll}, or the one waiting now, throws it, which
     * stops the engine.
     */
    public void producerException(RuntimeException failure) {
        lock.lock();
        try {
            producerFailure = failure;
            pollCanReturn.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes what is queued, up to {@code maxBatchSize} records, in queue order. Returns as soon as there is at
     * least one record; otherwise waits for one up to the poll interval and then returns an empty list.
     *
     * @throws InterruptedException if the calling thread is interrupted while it waits
     * @throws RuntimeException the failure a producer reported through {@link #producerException}
     */
    public List<T> poll() throws InterruptedException {
        LoggingContext.PreviousContext previous = loggingContext != null ? loggingContext.get() : null;
        try {
            lock.lockInterruptibly();
            try {
                long remaining = emptyPollNanos;
                while (true) {
                    throwIfProducerFailed();
                    if (queued > 0) {
                        return takeBatch();
                    }
                    if (remaining <= 0) {
                        return new ArrayList<>(0);
                    }
                    remaining = pollCanReturn.awaitNanos(remaining);
                }
            } finally {
                lock.unlock();
            }
        } finally {
            if (previous != null) {
                previous.restore();
            }
        }
    }

    @Override
    public int totalCapacity() {
        return maxQueueSize;
    }

    @Override
    public int remainingCapacity() {
        return maxQueueSize - queued;
    }

    @Override
    public long maxQueueSizeInBytes() {
        return maxQueueSizeInBytes;
    }

    @Override
    public long currentQueueSizeInBytes() {
        return queuedBytes;
    }

    private void put(T record, boolean waitForRoom) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (waitForRoom && isFull()) {
                spaceFreed.await();
            }
            add(record);
        } finally {
            lock.unlock();
        }
    }

    /** Appends a record; the caller holds the lock. */
    private void add(T record) throws InterruptedException {
        records.enqueue(record);
        if (sizes != null) {
            long size = record.objectSize();
            sizes.add(size);
            queuedBytes += size;
        }
        if (queued++ == 0) {
            pollCanReturn.signal(); // only a poll on an empty queue waits
        }
    }

    private boolean isFull() {
        return queued >= maxQueueSize || (sizes != null && queuedBytes >= maxQueueSizeInBytes);
    }

    private List<T> takeBatch() throws InterruptedException {
        int count = Math.min(queued, maxBatchSize);
        List<T> batch = new ArrayList<>(count);
        long bytes = 0;
        for (int i = 0; i < count; i++) {
            batch.add(records.poll());
            if (sizes != null) {
                bytes += sizes.remove();
            }
        }
        queued -= count;
        queuedBytes -= bytes;
        spaceFreed.signalAll();
        return batch;
    }

    private void throwIfProducerFailed() {
        RuntimeException failure = producerFailure;
        if (failure != null) {
            throw failure;
        }
    }

    /** A FIFO of primitive sizes with room for a full queue (no boxing per record). */
    private static final class SizeRing {
        private final long[] sizes;
        private int head;
        private int count;

        SizeRing(int capacity) {
            sizes = new long[capacity + 1]; // + 1: disableBuffering may add one record past the limit
        }

        void add(long size) {
            sizes[(head + count) % sizes.length] = size;
            count++;
        }

        long remove() {
            long size = sizes[head];
            head = (head + 1) % sizes.length;
            count--;
            return size;
        }
    }

    /**
     * Builds a {@link ChangeEventQueue}; Debezium's connector tasks call it with their {@code poll.interval.ms},
     * {@code max.batch.size}, {@code max.queue.size} and {@code max.queue.size.in.bytes} (0 = no byte limit).
     *
     * @param <T> the queued records
     */
    public static class Builder<T extends Sizeable> {

        private Duration pollInterval;
        private int maxQueueSize;
        private int maxBatchSize;
        private Supplier<LoggingContext.PreviousContext> loggingContextSupplier;
        private long maxQueueSizeInBytes;
        private boolean buffering;
        private QueueProvider<T> queueProvider;

        /** How long an empty poll waits for a record (at most Debezium's return-control interval). */
        public Builder<T> pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        /** How many records the queue holds before producers wait. */
        public Builder<T> maxQueueSize(int maxQueueSize) {
            this.maxQueueSize = maxQueueSize;
            return this;
        }

        /** The most records one poll returns. */
        public Builder<T> maxBatchSize(int maxBatchSize) {
            this.maxBatchSize = maxBatchSize;
            return this;
        }

        /** Sets the connector's logging context (MDC) for the duration of each poll. */
        public Builder<T> loggingContextSupplier(Supplier<LoggingContext.PreviousContext> loggingContextSupplier) {
            this.loggingContextSupplier = loggingContextSupplier;
            return this;
        }

        /** How many bytes ({@link Sizeable#objectSize()}) the queue holds before producers wait; 0 = no limit. */
        public Builder<T> maxQueueSizeInBytes(long maxQueueSizeInBytes) {
            this.maxQueueSizeInBytes = maxQueueSizeInBytes;
            return this;
        }

        /** Where the queued records are kept; Debezium's {@link DefaultQueueProvider} when not set. */
        public Builder<T> queueProvider(QueueProvider<T> queueProvider) {
            this.queueProvider = queueProvider;
            return this;
        }

        /** Starts the queue with buffering on (see {@link ChangeEventQueue#enqueue}). */
        public Builder<T> buffering() {
            this.buffering = true;
            return this;
        }

        public ChangeEventQueue<T> build() {
            return new ChangeEventQueue<>(this);
        }
    }
}
