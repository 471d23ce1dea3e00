package io.debezium.connector.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.cdccache.connector.testing.ClassMembers;
import io.debezium.config.ConfigurationDefaults;
import io.debezium.pipeline.Sizeable;
import io.debezium.util.LoggingContext;

/** The project's {@link ChangeEventQueue} stands in for Debezium's and behaves the same, except that it never spins. */
class ChangeEventQueueShadowTest {

    private static final Duration POLL_INTERVAL = Duration.ofMillis(5);

    private final ListAppender<ILoggingEvent> queueLog = new ListAppender<>();
    private final Logger queueLogger = (Logger) LoggerFactory.getLogger(ChangeEventQueue.class);
    private Level levelBefore;

    record Event(int id, long objectSize) implements Sizeable {
    }

    @BeforeEach
    void captureQueueLog() {
        levelBefore = queueLogger.getLevel();
        queueLogger.setLevel(Level.DEBUG); // every turn of the wait loop logs "checking for more records..."
        queueLog.start();
        queueLogger.addAppender(queueLog);
    }

    @AfterEach
    void releaseQueueLog() {
        queueLogger.detachAppender(queueLog);
        queueLogger.setLevel(levelBefore);
    }

    private static ChangeEventQueue<Event> queue(int maxBatchSize, long maxQueueSizeInBytes) {
        return new ChangeEventQueue.Builder<Event>()
                .pollInterval(POLL_INTERVAL)
                .maxQueueSize(100)
                .maxBatchSize(maxBatchSize)
                .maxQueueSizeInBytes(maxQueueSizeInBytes)
                .loggingContextSupplier(() -> LoggingContext.forConnector("test", "test", "test"))
                .build();
    }

    @Test
    void theProjectsQueueIsTheOneLoadedNotDebeziums() {
        URL queue = ChangeEventQueue.class.getProtectionDomain().getCodeSource().getLocation();
        URL debezium = QueueProvider.class.getProtectionDomain().getCodeSource().getLocation();
        assertThat(queue).isNotEqualTo(debezium);
        assertThat(debezium.getPath()).contains("debezium-connector-common");
        assertThat(ChangeEventQueue.Builder.class.getProtectionDomain().getCodeSource().getLocation()).isEqualTo(queue);
    }

    @Test
    void hasExactlyTheNonPrivateMembersOfDebeziumsQueueAndBuilder() throws Exception {
        try (URLClassLoader debeziumOnly = new URLClassLoader(ClassMembers.locationsOf(QueueProvider.class, Sizeable.class, io.debezium.spi.common.Configurable.class,
                LoggingContext.class, ConfigurationDefaults.class, org.slf4j.Logger.class), ClassLoader.getPlatformClassLoader())) {
            for (Class<?> ours : List.of(ChangeEventQueue.class, ChangeEventQueue.Builder.class)) {
                Class<?> original = debeziumOnly.loadClass(ours.getName());
                assertThat(original.getProtectionDomain().getCodeSource().getLocation().getPath()).contains("debezium-connector-common");
                assertThat(ClassMembers.nonPrivate(ours)).as(ours.getName() + ": update or remove the project's copy when Debezium changes")
                        .isEqualTo(ClassMembers.nonPrivate(original));
            }
        }
    }

    @Test
    void anEmptyPollSleepsToItsDeadlineInsteadOfSpinningThroughItsLastMillisecond() throws Exception {
        ChangeEventQueue<Event> queue = queue(10, 0);
        int polls = 100;
        for (int i = 0; i < polls; i++) {
            assertThat(queue.poll()).isEmpty();
        }
        // Debezium 3.5's queue re-checked without waiting once the remaining wait rounded to 0 ms: hundreds of turns
        // per poll. A turn without a wakeup to it is a spurious wakeup here, which are rare.
        assertThat(turns()).as("wait-loop turns in %d empty polls", polls).isLessThanOrEqualTo(2L * polls);
    }

    @Test
    void aPollReturnsAtOnceWhenItsBatchIsFullAndOtherwiseWhatArrivedWithinTheInterval() throws Exception {
        ChangeEventQueue<Event> queue = queue(3, 0);
        for (int id = 1; id <= 4; id++) {
            queue.enqueue(new Event(id, 10));
        }
        assertThat(queue.poll()).extracting(Event::id).containsExactly(1, 2, 3);
        assertThat(queue.poll()).extracting(Event::id).containsExactly(4);
        assertThat(queue.remainingCapacity()).isEqualTo(100);

        // A record that arrives while a poll waits is returned by that poll.
        CompletableFuture<List<Event>> polled = CompletableFuture.supplyAsync(() -> {
            try {
                return queue.poll();
            }
            catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        queue.enqueue(new Event(5, 10));
        queue.enqueue(new Event(6, 10));
        queue.enqueue(new Event(7, 10)); // fills the batch
        List<Event> received = new ArrayList<>(polled.get(5, TimeUnit.SECONDS));
        while (received.size() < 3) {
            received.addAll(queue.poll());
        }
        assertThat(received).extracting(Event::id).containsExactly(5, 6, 7);
    }

    @Test
    void theByteLimitEndsAPollAndIsAccountedAsRecordsLeave() throws Exception {
        ChangeEventQueue<Event> queue = queue(50, 100);
        for (int id = 1; id <= 3; id++) {
            queue.enqueue(new Event(id, 40));
        }
        assertThat(queue.currentQueueSizeInBytes()).isEqualTo(120);
        assertThat(queue.poll()).extracting(Event::id).containsExactly(1, 2, 3);
        assertThat(queue.currentQueueSizeInBytes()).isZero();
        assertThat(queue.maxQueueSizeInBytes()).isEqualTo(100);
    }

    @Test
    void bufferingHoldsTheLastRecordBackUntilItIsFlushed() throws Exception {
        ChangeEventQueue<Event> queue = new ChangeEventQueue.Builder<Event>()
                .pollInterval(POLL_INTERVAL).maxQueueSize(10).maxBatchSize(10)
                .loggingContextSupplier(() -> LoggingContext.forConnector("test", "test", "test"))
                .buffering().build();
        assertThat(queue.isBuffered()).isTrue();
        queue.enqueue(new Event(1, 1));
        queue.enqueue(new Event(2, 1));
        assertThat(queue.poll()).extracting(Event::id).containsExactly(1);
        queue.flushBuffer(last -> new Event(last.id() * 10, last.objectSize()));
        assertThat(queue.poll()).extracting(Event::id).containsExactly(20);
        queue.disableBuffering();
        assertThat(queue.isBuffered()).isFalse();
    }

    @Test
    void aProducerExceptionIsThrownByTheNextPoll() {
        ChangeEventQueue<Event> queue = queue(10, 0);
        queue.producerException(new IllegalStateException("binlog reader failed"));
        assertThatThrownBy(queue::poll).isInstanceOf(IllegalStateException.class).hasMessage("binlog reader failed");
    }

    @Test
    void aFullQueueMakesTheProducerWaitUntilAPollDrainsIt() throws Exception {
        ChangeEventQueue<Event> queue = new ChangeEventQueue.Builder<Event>()
                .pollInterval(POLL_INTERVAL).maxQueueSize(2).maxBatchSize(2)
                .loggingContextSupplier(() -> LoggingContext.forConnector("test", "test", "test")).build();
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> IntStream.rangeClosed(1, 5).forEach(id -> {
            try {
                queue.enqueue(new Event(id, 1));
            }
            catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }));
        List<Integer> received = new ArrayList<>();
        while (received.size() < 5) {
            queue.poll().forEach(e -> received.add(e.id()));
        }
        producer.get(5, TimeUnit.SECONDS);
        assertThat(received).containsExactly(1, 2, 3, 4, 5);
    }

    private long turns() {
        return queueLog.list.stream().filter(e -> e.getFormattedMessage().equals("checking for more records...")).count();
    }
}
