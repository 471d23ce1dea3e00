package io.debezium.pipeline.meters;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

import dev.cdccache.connector.testing.ClassMembers;
import io.debezium.data.Envelope;
import io.debezium.pipeline.source.spi.EventMetadataProvider;
import io.debezium.pipeline.spi.OffsetContext;
import io.debezium.relational.TableId;
import io.debezium.spi.schema.DataCollectionId;
import io.debezium.util.Clock;

/** The project's {@link CommonEventMeter} stands in for Debezium's and behaves the same, except when it renders. */
class CommonEventMeterShadowTest {

    private static final Schema KEY_SCHEMA = SchemaBuilder.struct().name("shop.coupon.Key").field("id", Schema.INT64_SCHEMA).build();
    private static final TableId TABLE = new TableId("shop", null, "coupon");

    @Test
    void theProjectsMeterIsTheOneLoadedNotDebeziums() {
        URL meter = CommonEventMeter.class.getProtectionDomain().getCodeSource().getLocation();
        URL debezium = EventMetadataProvider.class.getProtectionDomain().getCodeSource().getLocation();
        assertThat(meter).isNotEqualTo(debezium);
        assertThat(debezium.getPath()).contains("debezium-connector-common");
    }

    @Test
    void hasExactlyTheNonPrivateMembersOfDebeziumsMeter() throws Exception {
        Class<?> original;
        try (URLClassLoader debeziumOnly = new URLClassLoader(ClassMembers.locationsOf(EventMetadataProvider.class, Struct.class, Clock.class, DataCollectionId.class, Envelope.class),
                ClassLoader.getPlatformClassLoader())) {
            original = debeziumOnly.loadClass(CommonEventMeter.class.getName());
            assertThat(original.getProtectionDomain().getCodeSource().getLocation().getPath()).contains("debezium-connector-common");
            assertThat(ClassMembers.nonPrivate(CommonEventMeter.class))
                    .as("members of " + original.getProtectionDomain().getCodeSource().getLocation()
                            + ": update or remove the project's copy when Debezium changes")
                    .isEqualTo(ClassMembers.nonPrivate(original));
        }
    }

    @Test
    void lastEventReadsTheSameAsDebeziumsSummaryWithThePositionAsItWasWhenTheEventWasSeen() {
        MovingPosition provider = new MovingPosition();
        CommonEventMeter meter = new CommonEventMeter(Clock.SYSTEM, provider);
        Struct key = new Struct(KEY_SCHEMA).put("id", 42L);

        provider.position.put("pos", "1000");
        String expected = provider.toSummaryString(TABLE, null, key, null);
        meter.onEvent(TABLE, null, key, null, Envelope.Operation.UPDATE);
        provider.position.put("pos", "2000"); // the offset context moves on before anyone reads the attribute

        assertThat(meter.getLastEvent()).isEqualTo(expected).contains("1000").contains("42");
        assertThat(meter.getTotalNumberOfEventsSeen()).isEqualTo(1);
        assertThat(meter.getTotalNumberOfUpdateEventsSeen()).isEqualTo(1);
    }

    @Test
    void countsEveryKindOfEventAndResetsToDebeziumsInitialValues() {
        CommonEventMeter meter = new CommonEventMeter(Clock.SYSTEM, new MovingPosition());
        assertThat(meter.getLastEvent()).isNull();
        assertThat(meter.getMilliSecondsSinceLastEvent()).isEqualTo(-1);

        Struct key = new Struct(KEY_SCHEMA).put("id", 1L);
        meter.onEvent(TABLE, null, key, null, Envelope.Operation.CREATE);
        meter.onEvent(TABLE, null, key, null, Envelope.Operation.DELETE);
        meter.onEvent(TABLE, null, key, null, Envelope.Operation.TRUNCATE);
        meter.onFilteredEvent();
        meter.onFilteredEvent(Envelope.Operation.UPDATE);
        meter.onErroneousEvent();
        meter.onErroneousEvent(Envelope.Operation.CREATE);

        assertThat(meter.getTotalNumberOfEventsSeen()).isEqualTo(7);
        assertThat(meter.getTotalNumberOfCreateEventsSeen()).isEqualTo(2);
        assertThat(meter.getTotalNumberOfUpdateEventsSeen()).isEqualTo(1);
        assertThat(meter.getTotalNumberOfDeleteEventsSeen()).isEqualTo(1);
        assertThat(meter.getNumberOfEventsFiltered()).isEqualTo(2);
        assertThat(meter.getNumberOfErroneousEvents()).isEqualTo(2);
        assertThat(meter.getMilliSecondsSinceLastEvent()).isGreaterThanOrEqualTo(0);

        meter.reset();
        assertThat(meter.getTotalNumberOfEventsSeen()).isZero();
        assertThat(meter.getNumberOfEventsFiltered()).isZero();
        assertThat(meter.getNumberOfErroneousEvents()).isZero();
        assertThat(meter.getMilliSecondsSinceLastEvent()).isEqualTo(-1);
        assertThat(meter.getLastEvent()).isNull();
    }

    /** A provider whose position changes after the event, as a binlog offset context does. */
    private static final class MovingPosition implements EventMetadataProvider {
        final Map<String, String> position = new HashMap<>(Map.of("file", "mariadb-bin.000001"));

        @Override
        public Instant getEventTimestamp(DataCollectionId source, OffsetContext offset, Object key, Struct value) {
            return Instant.EPOCH;
        }

        @Override
        public Map<String, String> getEventSourcePosition(DataCollectionId source, OffsetContext offset, Object key, Struct value) {
            return new HashMap<>(position); // a new map per call, as Debezium's providers build one
        }

        @Override
        public String getTransactionId(DataCollectionId source, OffsetContext offset, Object key, Struct value) {
            return null;
        }
    }
}
