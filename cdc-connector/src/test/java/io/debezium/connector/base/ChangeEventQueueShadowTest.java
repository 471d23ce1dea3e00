package io.debezium.connector.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.connector.config.DebeziumSettings;
import dev.cdccache.connector.testing.LibraryLinkage;
import dev.cdccache.connector.testing.LibraryLinkage.Use;
import io.debezium.pipeline.Sizeable;
import io.debezium.util.LoggingContext;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * The project's {@link ChangeEventQueue} is the one Debezium's connector code gets, provides every member that code
 * links against, and hands records over as the engine needs them: at once, in order, in batches under load, with
 * back-pressure, buffering and producer failures.
 */
class ChangeEventQueueShadowTest {

    /** Longer than any wait a passing test makes: a poll that waited for its deadline would time the test out. */
    private static final Duration LONG_INTERVAL = Duration.ofSeconds(5);

    record Event(int id, long objectSize) implements Sizeable {
    }

    private static ChangeEventQueue.Builder<Event> builder(Duration pollInterval, int maxBatchSize, int maxQueueSize) {
        return new ChangeEventQueue.Builder<Event>().pollInterval(pollInterval).maxBatchSize(maxBatchSize)
                .maxQueueSize(maxQueueSize).loggingContextSupplier(() -> LoggingContext.forConnector("mariadb", "test", "test"));
    }

    private static CompletableFuture<List<Event>> pollAsync(ChangeEventQueue<Event> queue) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return queue.poll();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void awaitWaiting(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("%s waits", thread.getName()).isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    /** A poll on another thread, once it waits on the empty queue. */
    private static CompletableFuture<List<Event>> waitingPoll(ChangeEventQueue<Event> queue) throws InterruptedException {
        CountDownLatch polling = new CountDownLatch(1);
        Thread[] poller = new Thread[1];
        CompletableFuture<List<Event>> polled = CompletableFuture.supplyAsync(() -> {
            poller[0] = Thread.currentThread();
            polling.countDown();
            try {
                return queue.poll();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        polling.await();
        awaitWaiting(poller[0]);
        return polled;
    }

    /** A producer thread enqueueing {@code event}, once it waits for room in the full queue. */
    private static Thread blockedProducer(ChangeEventQueue<Event> queue, Event event) throws InterruptedException {
        Thread producer = new Thread(() -> {
            try {
                queue.enqueue(event);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "producer");
        producer.start();
        awaitWaiting(producer);
        assertThat(producer.isAlive()).as("record %d waits for room", event.id()).isTrue();
        return producer;
    }

    // --- it fits the library ---

    @Test
    void theProjectsQueueIsTheOneLoadedNotDebeziums() {
        java.net.URL connector = DebeziumSettings.class.getProtectionDomain().getCodeSource().getLocation();
        assertThat(ChangeEventQueue.class.getProtectionDomain().getCodeSource().getLocation()).isEqualTo(connector);
        assertThat(ChangeEventQueue.Builder.class.getProtectionDomain().getCodeSource().getLocation()).isEqualTo(connector);
        assertThat(QueueProvider.class.getProtectionDomain().getCodeSource().getLocation().getPath()).contains("debezium-connector-common");
    }

    @Test
    void debeziumStillShipsTheClassThisOneStandsInForWithTheSameInterfaces() throws Exception {
        try (URLClassLoader debeziumOnly = debeziumOnly()) {
            Class<?> original = debeziumOnly.loadClass(ChangeEventQueue.class.getName());
            assertThat(original.getProtectionDomain().getCodeSource().getLocation().getPath()).contains("debezium-connector-common");
            assertThat(Stream.of(ChangeEventQueue.class.getInterfaces()).map(Class::getName))
                    .as("Debezium passes its queue where these interfaces are expected")
                    .containsAll(Stream.of(original.getInterfaces()).map(Class::getName).toList());
            assertThat(ChangeEventQueue.class.getTypeParameters()[0].getBounds()[0].getTypeName())
                    .isEqualTo(original.getTypeParameters()[0].getBounds()[0].getTypeName());
        }
    }

    @Test
    void providesEveryMemberDebeziumsCodeLinksAgainst() throws Exception {
        List<Path> debezium = LibraryLinkage.classPathJars("debezium-");
        Set<Use> queueUses = LibraryLinkage.usesOf(ChangeEventQueue.class, debezium);
        Set<Use> builderUses = LibraryLinkage.usesOf(ChangeEventQueue.Builder.class, debezium);

        // the scan sees the calls the binlog connectors make (otherwise the check below would pass on nothing)
        assertThat(queueUses).extracting(Use::member).contains("poll", "enqueue", "producerException", "flushBuffer", "disableBuffering");
        assertThat(builderUses).extracting(Use::member).contains("<init>", "pollInterval", "maxQueueSizeInBytes", "queueProvider", "build");
        assertThat(LibraryLinkage.unsatisfied(ChangeEventQueue.class, queueUses)).isEmpty();
        assertThat(LibraryLinkage.unsatisfied(ChangeEventQueue.Builder.class, builderUses)).isEmpty();
    }

    private static URLClassLoader debeziumOnly() throws Exception {
        List<java.net.URL> urls = new ArrayList<>();
        for (Path jar : LibraryLinkage.classPathJars("")) {
            String name = jar.getFileName().toString();
            if (name.startsWith("debezium-") || name.startsWith("slf4j-api") || name.startsWith("connect-api") || name.startsWith("kafka-clients")) {
                urls.add(jar.toUri().toURL());
            }
        }
        return new URLClassLoader(urls.toArray(java.net.URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    // --- hand-over ---

    @Test
    void aPollReturnsAsSoonAsARecordArrivesInsteadOfWaitingForItsDeadline() throws Exception {
        ChangeEventQueue<Event> queue = builder(LONG_INTERVAL, 100, 1000).build();
        CompletableFuture<List<Event>> polled = waitingPoll(queue);
        queue.enqueue(new Event(1, 10));

        // Debezium's queue would go on waiting for 99 more records or the end of its 5 s interval.
        assertThat(polled.get(2, TimeUnit.SECONDS)).extracting(Event::id).containsExactly(1);
    }

    @Test
    void aPollReturnsWhatIsQueuedAtOnceWithoutWaitingForAFullBatch() throws Exception {
        ChangeEventQueue<Event> queue = builder(LONG_INTERVAL, 100, 1000).build();
        queue.enqueue(new Event(1, 10));
        queue.enqueue(new Event(2, 10));

        assertThat(pollAsync(queue).get(2, TimeUnit.SECONDS)).extracting(Event::id).containsExactly(1, 2);
    }

    @Test
    void aBurstFillsBatchesOfMaxBatchSizeInOrder() throws Exception {
        ChangeEventQueue<Event> queue = builder(LONG_INTERVAL, 10, 100).build();
        for (int id = 1; id <= 25; id++) {
            queue.enqueue(new Event(id, 1));
        }

        assertThat(queue.poll()).extracting(Event::id).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        assertThat(queue.poll()).extracting(Event::id).containsExactly(11, 12, 13, 14, 15, 16, 17, 18, 19, 20);
        assertThat(queue.poll()).extracting(Event::id).containsExactly(21, 22, 23, 24, 25);
        assertThat(queue.remainingCapacity()).isEqualTo(100);
        assertThat(queue.totalCapacity()).isEqualTo(100);
    }

    @Test
    void whatArrivesWhileTheConsumerPublishesABatchComesOutAsOneBatch() throws Exception {
        ChangeEventQueue<Event> queue = builder(LONG_INTERVAL, 100, 1000).build();
        queue.enqueue(new Event(1, 1));
        assertThat(queue.poll()).extracting(Event::id).containsExactly(1);
        // the consumer publishes record 1 while the binlog reader queues 2..8
        for (int id = 2; id <= 8; id++) {
            queue.enqueue(new Event(id, 1));
        }

        assertThat(queue.poll()).extracting(Event::id).containsExactly(2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    void anEmptyPollSleepsToItsDeadlineWithoutSpinningOrReturningEarly() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ChangeEventQueue<Event> queue = builder(Duration.ofMillis(5), 10, 100).build();
        queue.poll(); // loads and links what the first poll needs
        int polls = 100;
        long cpuBefore = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        for (int i = 0; i < polls; i++) {
            assertThat(queue.poll()).isEmpty();
        }
        long wall = System.nanoTime() - start;
        long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;

        // returning early would make the engine's loop spin; never shorter than the interval
        assertThat(wall).isGreaterThanOrEqualTo(polls * Duration.ofMillis(5).toNanos());
        // Debezium 3.5's queue re-checked without waiting through the last millisecond of each interval: ~1/6 of
        // the wall time in CPU at 5 ms. A poll that sleeps once costs microseconds.
        assertThat(cpu).as("CPU time of %d empty polls over %d ms", polls, wall / 1_000_000).isLessThan(wall / 20);
    }

    @Test
    void anEmptyPollWaitsAtMostDebeziumsReturnControlInterval() throws Exception {
        ChangeEventQueue<Event> queue = builder(Duration.ofHours(1), 10, 100).build();
        long start = System.nanoTime();

        assertThat(queue.poll()).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(
                io.debezium.config.ConfigurationDefaults.RETURN_CONTROL_INTERVAL, Duration.ofSeconds(30));
    }

    @Test
    void aPollRunsInTheConnectorsLoggingContextAndRestoresTheCallers() throws Exception {
        ChangeEventQueue<Event> queue = builder(Duration.ofMillis(1), 10, 100).build();
        MDC.put("caller", "engine");
        try {
            java.util.Map<String, String> before = MDC.getCopyOfContextMap();
            queue.poll();
            assertThat(MDC.getCopyOfContextMap()).as("the connector's MDC keys are gone again").isEqualTo(before);
        } finally {
            MDC.remove("caller");
        }
    }

    // --- back-pressure ---

    @Test
    void aFullQueueMakesTheProducerWaitUntilAPollTakesRecords() throws Exception {
        ChangeEventQueue<Event> queue = builder(LONG_INTERVAL, 2, 3).build();
        for (int id = 1; id <= 3; id++) {
            queue.enqueue(new Event(id, 1));
        }
        assertThat(queue.remainingCapacity()).isZero();
        Thread producer = blockedProducer(queue, new Event(4, 1));

        assertThat(queue.poll()).extracting(Event::id).containsExactly(1, 2);
        producer.join(TimeUnit.SECONDS.toMillis(5));
        assertThat(producer.isAlive()).isFalse();
        assertThat(queue.poll()).extracting(Event::id).containsExactly(3, 4);
    }

    @Test
    void theByteLimitMakesTheProducerWaitAndIsAccountedAsRecordsLeave() throws Exception {
        ChangeEventQueue<Event> queue = builder(LONG_INTERVAL, 2, 100).maxQueueSizeInBytes(100).build();
        for (int id = 1; id <= 3; id++) {
            queue.enqueue(new Event(id, 40));
        }
        assertThat(queue.currentQueueSizeInBytes()).isEqualTo(120);
        assertThat(queue.maxQueueSizeInBytes()).isEqualTo(100);
        Thread producer = blockedProducer(queue, new Event(4, 40)); // the queue holds 120 of 100 bytes

        assertThat(queue.poll()).extracting(Event::id).containsExactly(1, 2);
        producer.join(TimeUnit.SECONDS.toMillis(5));
        assertThat(producer.isAlive()).isFalse();
        assertThat(queue.currentQueueSizeInBytes()).isEqualTo(80);
        assertThat(queue.poll()).extracting(Event::id).containsExactly(3, 4);
        assertThat(queue.currentQueueSizeInBytes()).isZero();
    }

    @Test
    void anInterruptedProducerGetsInterruptedExceptionAndQueuesNothing() throws Exception {
        ChangeEventQueue<Event> queue = builder(Duration.ofMillis(1), 10, 100).build();
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> queue.enqueue(new Event(1, 1))).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
        assertThat(queue.poll()).isEmpty();
    }

    @Test
    void aProducerAndAConsumerRunningTogetherLoseNothingAndKeepTheOrder() throws Exception {
        ChangeEventQueue<Event> queue = builder(Duration.ofMillis(5), 64, 128).maxQueueSizeInBytes(5_000).build();
        int count = 50_000;
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            try {
                for (int id = 1; id <= count; id++) {
                    queue.enqueue(new Event(id, 50));
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        List<Integer> received = new ArrayList<>(count);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (received.size() < count && System.nanoTime() < deadline) {
            List<Event> batch = queue.poll();
            assertThat(batch.size()).isLessThanOrEqualTo(64);
            batch.forEach(e -> received.add(e.id()));
        }
        producer.get(5, TimeUnit.SECONDS);

        assertThat(received).hasSize(count);
        for (int i = 0; i < count; i++) {
            assertThat(received.get(i)).isEqualTo(i + 1);
        }
        assertThat(queue.currentQueueSizeInBytes()).isZero();
    }

    // --- buffering and failures ---

    @Test
    void bufferingHoldsTheLatestRecordBackUntilTheNextOrAFlush() throws Exception {
        ChangeEventQueue<Event> queue = builder(Duration.ofMillis(1), 10, 10).buffering().build();
        assertThat(queue.isBuffered()).isTrue();
        queue.enqueue(new Event(1, 1));
        assertThat(queue.poll()).as("the only record is held back").isEmpty();
        queue.enqueue(new Event(2, 1));
        assertThat(queue.poll()).extracting(Event::id).containsExactly(1);

        queue.flushBuffer(last -> new Event(last.id() * 10, last.objectSize())); // Debezium marks the snapshot's last record
        assertThat(queue.poll()).extracting(Event::id).containsExactly(20);
        queue.disableBuffering();
        assertThat(queue.isBuffered()).isFalse();
        queue.enqueue(new Event(3, 1));
        assertThat(queue.poll()).extracting(Event::id).containsExactly(3);
        queue.enableBuffering();
        assertThat(queue.isBuffered()).isTrue();
    }

    @Test
    void disablingBufferingNeverStrandsTheRecordHeldBack() throws Exception {
        ChangeEventQueue<Event> queue = builder(Duration.ofMillis(1), 10, 1).buffering().build();
        queue.enqueue(new Event(1, 1));
        queue.enqueue(new Event(2, 1)); // 1 queued (the queue is full), 2 held back

        queue.disableBuffering();

        assertThat(queue.poll()).extracting(Event::id).containsExactly(1, 2);
    }

    @Test
    void aProducerExceptionIsThrownByTheNextPoll() {
        ChangeEventQueue<Event> queue = builder(Duration.ofMillis(1), 10, 100).build();
        queue.producerException(new IllegalStateException("binlog reader failed"));

        assertThatThrownBy(queue::poll).isInstanceOf(IllegalStateException.class).hasMessage("binlog reader failed");
    }

    @Test
    void aProducerExceptionWakesAWaitingPoll() throws Exception {
        ChangeEventQueue<Event> queue = builder(LONG_INTERVAL, 10, 100).build();
        CompletableFuture<List<Event>> polled = waitingPoll(queue);

        queue.producerException(new IllegalStateException("binlog reader failed"));

        assertThatThrownBy(() -> polled.get(2, TimeUnit.SECONDS)).hasRootCauseMessage("binlog reader failed");
    }
}
