/*
 * Replaces Debezium 3.5's io.debezium.connector.base.ChangeEventQueue (Apache License 2.0) on this
 * application's class path: the application's own classes come before its libraries, in the executable
 * jar as in tests. Same fields, constructor, builder and methods; only poll() waits to its deadline in
 * nanoseconds instead of whole milliseconds.
 */
package io.debezium.connector.base;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.debezium.annotation.ThreadSafe;
import io.debezium.config.ConfigurationDefaults;
import io.debezium.pipeline.Sizeable;
import io.debezium.time.Temporals;
import io.debezium.util.LoggingContext;
import io.debezium.util.Loggings;

/**
 * Debezium's queue between the binlog reader and the engine's polling thread, without the idle spin.
 *
 * <p>Debezium 3.5's {@code poll()} waits for the rest of its interval in whole milliseconds and ends the
 * interval on "elapsed &gt; interval" of a millisecond clock: in the last millisecond of every interval the
 * remaining wait rounds down to 0 and the loop re-checks without waiting until the clock ticks. With the
 * connector's 5 ms poll interval that spin was ~15% of a core with no traffic at all (docs/benchmarks.md).
 * Here the deadline is a {@link System#nanoTime()} instant and the wait is {@link Condition#awaitNanos}, so a
 * poll with nothing to return sleeps to its deadline once; what a poll returns, and when, is otherwise
 * Debezium's: it returns when a batch is full, the byte limit is reached or the interval is over.
 *
 * <p>Remove this class when Debezium's own queue stops spinning; {@code ChangeEventQueueShadowTest} fails if
 * this class and Debezium's stop having the same members.
 */
@ThreadSafe
public class ChangeEventQueue<T extends Sizeable> implements ChangeEventQueueMetrics {

    private static final Logger LOGGER = LoggerFactory.getLogger(ChangeEventQueue.class);

    private final Duration pollInterval;
    private final int maxBatchSize;
    private final int maxQueueSize;
    private final long maxQueueSizeInBytes;
    private final Lock lock;
    private final Condition isFull;
    private final Condition isNotFull;
    private final QueueProvider<T> queue;
    private final Supplier<LoggingContext.PreviousContext> loggingContextSupplier;
    private final Queue<Long> sizeInBytesQueue;
    private long currentQueueSizeInBytes = 0L;
    private boolean buffering;
    private final AtomicReference<T> bufferedEvent = new AtomicReference<>();
    private volatile RuntimeException producerException;

    private ChangeEventQueue(Duration pollInterval, int maxQueueSize, int maxBatchSize,
                             Supplier<LoggingContext.PreviousContext> loggingContextSupplier, long maxQueueSizeInBytes,
                             boolean buffering, QueueProvider<T> queueProvider) {
        this.pollInterval = pollInterval;
        this.maxBatchSize = maxBatchSize;
        this.maxQueueSize = maxQueueSize;
        this.lock = new ReentrantLock();
        this.isFull = lock.newCondition();
        this.isNotFull = lock.newCondition();
        this.loggingContextSupplier = loggingContextSupplier;
        this.sizeInBytesQueue = maxQueueSizeInBytes > 0 ? new ArrayDeque<>(maxQueueSize) : new ArrayDeque<>(0);
        this.maxQueueSizeInBytes = maxQueueSizeInBytes;
        this.buffering = buffering;
        this.queue = queueProvider;
    }

    /**
     * Enqueues a record so that it can be obtained via {@link #poll()}. With buffering enabled, the record is
     * held back until the next one arrives (or {@link #flushBuffer} is called).
     */
    public void enqueue(T record) throws InterruptedException {
        if (record == null) {
            return;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (buffering) {
            record = bufferedEvent.getAndSet(record);
            if (record == null) {
                return; // the first record is only buffered
            }
        }
        doEnqueue(record);
    }

    /** Applies {@code recordModifier} to the buffered record, if any, and enqueues it. */
    public void flushBuffer(Function<T, T> recordModifier) throws InterruptedException {
        assert buffering : "Unsupported for queues with disabled buffering";
        T record = bufferedEvent.getAndSet(null);
        if (record != null) {
            doEnqueue(recordModifier.apply(record));
        }
    }

    /** Disables buffering; the buffer must have been flushed. */
    public void disableBuffering() {
        assert bufferedEvent.get() == null : "Buffer must be flushed";
        buffering = false;
    }

    public void enableBuffering() {
        buffering = true;
    }

    protected void doEnqueue(T record) throws InterruptedException {
        if (LOGGER.isTraceEnabled()) {
            LOGGER.trace("Enqueuing source record '{}'", Loggings.maybeRedactSensitiveData(record));
        }
        try {
            lock.lock();
            while (queue.size() >= maxQueueSize || (maxQueueSizeInBytes > 0 && currentQueueSizeInBytes >= maxQueueSizeInBytes)) {
                // signal poll() to drain queue
                isFull.signalAll();
                // queue size or queue sizeInBytes threshold reached, so wait a bit
                isNotFull.await(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
            }
            queue.enqueue(record);
            // If we pass a positiveLong max.queue.size.in.bytes to enable handling queue size in bytes feature
            if (maxQueueSizeInBytes > 0) {
                long messageSize = record.objectSize();
                sizeInBytesQueue.add(messageSize);
                currentQueueSizeInBytes += messageSize;
            }
            // batch size or queue sizeInBytes threshold reached
            if (queue.size() >= maxBatchSize || (maxQueueSizeInBytes > 0 && currentQueueSizeInBytes >= maxQueueSizeInBytes)) {
                // signal poll() to start draining queue and do not wait
                isFull.signalAll();
            }
        }
        finally {
            lock.unlock();
        }
    }

    /**
     * Returns the next batch of elements from this queue. May be empty in case no elements have arrived in the
     * maximum waiting time.
     *
     * @throws InterruptedException if this thread has been interrupted while waiting for more elements to arrive
     */
    public List<T> poll() throws InterruptedException {
        LoggingContext.PreviousContext previousContext = loggingContextSupplier.get();
        try {
            LOGGER.debug("polling records...");
            long waitNanos = Temporals.min(pollInterval, ConfigurationDefaults.RETURN_CONTROL_INTERVAL).toNanos();
            long deadline = System.nanoTime() + waitNanos;
            try {
                lock.lock();
                List<T> records = new ArrayList<>(Math.min(maxBatchSize, queue.size()));
                throwProducerExceptionIfPresent();
                while (drainRecords(records, maxBatchSize - records.size()) < maxBatchSize
                        && (maxQueueSizeInBytes == 0 || currentQueueSizeInBytes < maxQueueSizeInBytes)) {
                    long remainingNanos = deadline - System.nanoTime();
                    if (remainingNanos <= 0) {
                        break; // the interval is over
                    }
                    throwProducerExceptionIfPresent();
                    LOGGER.debug("no records available or batch size not reached yet, sleeping a bit...");
                    // signal doEnqueue() to add more records
                    isNotFull.signalAll();
                    // no records available or batch size not reached yet, so wait a bit
                    isFull.awaitNanos(remainingNanos);
                    LOGGER.debug("checking for more records...");
                }
                // signal doEnqueue() to add more records
                isNotFull.signalAll();
                return records;
            }
            finally {
                lock.unlock();
            }
        }
        finally {
            previousContext.restore();
        }
    }

    private long drainRecords(List<T> records, int maxElements) throws InterruptedException {
        int queueSize = queue.size();
        if (queueSize == 0) {
            return records.size();
        }
        int recordsToDrain = Math.min(queueSize, maxElements);
        @SuppressWarnings("unchecked")
        T[] drainedRecords = (T[]) new Sizeable[recordsToDrain];
        for (int i = 0; i < recordsToDrain; i++) {
            drainedRecords[i] = queue.poll();
        }
        if (maxQueueSizeInBytes > 0) {
            for (int i = 0; i < recordsToDrain; i++) {
                Long objectSize = sizeInBytesQueue.poll();
                currentQueueSizeInBytes -= (objectSize == null ? 0L : objectSize);
            }
        }
        records.addAll(Arrays.asList(drainedRecords));
        return records.size();
    }

    public void producerException(final RuntimeException producerException) {
        this.producerException = producerException;
    }

    private void throwProducerExceptionIfPresent() {
        if (producerException != null) {
            throw producerException;
        }
    }

    @Override
    public int totalCapacity() {
        return maxQueueSize;
    }

    @Override
    public int remainingCapacity() {
        return maxQueueSize - queue.size();
    }

    @Override
    public long maxQueueSizeInBytes() {
        return maxQueueSizeInBytes;
    }

    @Override
    public long currentQueueSizeInBytes() {
        return currentQueueSizeInBytes;
    }

    public boolean isBuffered() {
        return buffering;
    }

    /** Debezium's builder of the queue, unchanged. */
    public static class Builder<T extends Sizeable> {

        private Duration pollInterval;
        private int maxQueueSize;
        private int maxBatchSize;
        private Supplier<LoggingContext.PreviousContext> loggingContextSupplier;
        private long maxQueueSizeInBytes;
        private boolean buffering;
        private QueueProvider<T> queueProvider;

        public Builder<T> pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        public Builder<T> maxQueueSize(int maxQueueSize) {
            this.maxQueueSize = maxQueueSize;
            return this;
        }

        public Builder<T> maxBatchSize(int maxBatchSize) {
            this.maxBatchSize = maxBatchSize;
            return this;
        }

        public Builder<T> loggingContextSupplier(Supplier<LoggingContext.PreviousContext> loggingContextSupplier) {
            this.loggingContextSupplier = loggingContextSupplier;
            return this;
        }

        public Builder<T> maxQueueSizeInBytes(long maxQueueSizeInBytes) {
            this.maxQueueSizeInBytes = maxQueueSizeInBytes;
            return this;
        }

        public Builder<T> queueProvider(QueueProvider<T> queueProvider) {
            this.queueProvider = queueProvider;
            return this;
        }

        public Builder<T> buffering() {
            this.buffering = true;
            return this;
        }

        public ChangeEventQueue<T> build() {
            QueueProvider<T> effectiveQueueProvider = queueProvider != null ? queueProvider : new DefaultQueueProvider<>(maxQueueSize);
            return new ChangeEventQueue<>(pollInterval, maxQueueSize, maxBatchSize, loggingContextSupplier,
                    maxQueueSizeInBytes, buffering, effectiveQueueProvider);
        }
    }
}
