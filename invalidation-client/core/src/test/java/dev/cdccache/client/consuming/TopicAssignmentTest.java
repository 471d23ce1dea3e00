package dev.cdccache.client.consuming;

import static dev.cdccache.client.consuming.Parts.COUPON;
import static dev.cdccache.client.consuming.Parts.HEARTBEAT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/** Which partitions are read and where their log ends, on its own (Kafka's MockConsumer). */
class TopicAssignmentTest {

    private static final String OTHER = "cdc.coupon_db.other";

    private final Parts parts = new Parts();
    private final TopicAssignment topics = new TopicAssignment(parts.kafka, parts.router,
            Set.of(COUPON, OTHER, HEARTBEAT), Duration.ofSeconds(1), 1_000);

    @Test
    void partitionsFoundAtTheFirstListingStartAtTheirEndAndLaterOnesAtTheirBeginning() {
        parts.topics(COUPON, HEARTBEAT);
        parts.kafka.updateEndOffsets(Map.of(new TopicPartition(COUPON, 0), 5L));
        TopicAssignment.Listing first = topics.refresh();
        assertThat(first.missing()).containsExactly(OTHER);
        assertThat(parts.kafka.position(new TopicPartition(COUPON, 0))).isEqualTo(5);

        parts.topics(OTHER);
        parts.kafka.updateEndOffsets(Map.of(new TopicPartition(OTHER, 0), 3L));
        TopicAssignment.Listing second = topics.refresh();
        assertThat(second.discovered()).containsExactly(new TopicPartition(OTHER, 0));
        assertThat(parts.kafka.position(new TopicPartition(OTHER, 0))).as("written after start").isZero();
        assertThat(topics.checkableTopics()).containsExactlyInAnyOrder(COUPON, OTHER, HEARTBEAT);
    }

    @Test
    void aTopicDeletedWhileBeingReadIsDroppedAndItsCachesEvicted() {
        parts.topics(COUPON, HEARTBEAT);
        topics.refresh();
        parts.load(1);
        parts.kafka.updatePartitions(COUPON, List.of());
        TopicAssignment.Listing listing = topics.refresh();
        assertThat(listing.deleted()).containsExactly(COUPON);
        assertThat(topics.deletedTopics()).containsExactly(COUPON);
        assertThat(parts.cached(1)).isFalse();
        assertThat(parts.kafka.assignment()).containsExactly(new TopicPartition(HEARTBEAT, 0));
    }

    @Test
    void aTopicWhoseLogEndCannotBeLookedUpIsLeftOutWhileTheOthersAnswer() {
        MockConsumer<byte[], byte[]> kafka = new MockConsumer<>("none") {
            @Override
            public synchronized Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions,
                    Duration timeout) {
                if (partitions.stream().anyMatch(tp -> tp.topic().equals(COUPON))) {
                    throw new TimeoutException("simulated: no leader");
                }
                return super.endOffsets(partitions, timeout);
            }
        };
        for (String topic : List.of(COUPON, HEARTBEAT)) {
            kafka.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
            kafka.updateEndOffsets(Map.of(new TopicPartition(topic, 0), 0L));
        }
        TopicAssignment assignment = new TopicAssignment(kafka, parts.router, Set.of(COUPON, HEARTBEAT),
                Duration.ofSeconds(1), 1_000);
        assignment.refresh();
        assertThat(assignment.endOffsets(0)).containsOnlyKeys(new TopicPartition(HEARTBEAT, 0));
        assertThat(assignment.unavailableTopics()).containsExactly(COUPON);
        assertThat(assignment.checkableTopics()).containsExactly(HEARTBEAT);

        TopicAssignment alone = new TopicAssignment(kafka, parts.router, Set.of(COUPON), Duration.ofSeconds(1),
                1_000);
        alone.refresh();
        assertThatThrownBy(() -> alone.endOffsets(0)).as("one topic alone: Kafka is the problem")
                .isInstanceOf(TimeoutException.class);
    }
}
