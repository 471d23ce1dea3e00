package io.debezium.pipeline.meters;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.config.DebeziumSettings;
import dev.cdccache.connector.testing.LibraryLinkage;
import dev.cdccache.connector.testing.LibraryLinkage.Use;
import io.debezium.data.Envelope;
import io.debezium.pipeline.source.spi.EventMetadataProvider;
import io.debezium.pipeline.spi.OffsetContext;
import io.debezium.relational.TableId;
import io.debezium.spi.schema.DataCollectionId;
import io.debezium.util.Clock;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

/**
 * The project's {@link CommonEventMeter} is the one Debezium's metrics get, provides every member they link against,
 * counts as Debezium's JMX attributes promise, and renders {@code LastEvent} only when it is read.
 */
class CommonEventMeterShadowTest {

    private static final Schema KEY_SCHEMA = SchemaBuilder.struct().name("shop.coupon.Key").field("id", Schema.INT64_SCHEMA).build();
    private static final TableId TABLE = new TableId("shop", null, "coupon");

    @Test
    void theProjectsMeterIsTheOneLoadedNotDebeziums() {
        URL connector = DebeziumSettings.class.getProtectionDomain().getCodeSource().getLocation();
        assertThat(CommonEventMeter.class.getProtectionDomain().getCodeSource().getLocation()).isEqualTo(connector);
        assertThat(EventMetadataProvider.class.getProtectionDomain().getCodeSource().getLocation().getPath())
                .contains("debezium-connector-common");
    }

    @Test
    void debeziumStillShipsTheClassThisOneStandsInForWithTheSameInterfaces() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (Path jar : LibraryLinkage.classPathJars("")) {
            String name = jar.getFileName().toString();
            if (name.startsWith("debezium-") || name.startsWith("connect-api") || name.startsWith("kafka-clients") || name.startsWith("slf4j-api")) {
                urls.add(jar.toUri().toURL());
            }
        }
        try (URLClassLoader debeziumOnly = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Class<?> original = debeziumOnly.loadClass(CommonEventMeter.class.getName());
            assertThat(original.getProtectionDomain().getCodeSource().getLocation().getPath()).contains("debezium-connector-common");
            assertThat(Stream.of(CommonEventMeter.class.getInterfaces()).map(Class::getName))
                    .containsAll(Stream.of(original.getInterfaces()).map(Class::getName).toList());
        }
    }

    @Test
    void providesEveryMemberDebeziumsCodeLinksAgainst() throws Exception {
        Set<Use> uses = LibraryLinkage.usesOf(CommonEventMeter.class, LibraryLinkage.classPathJars("debezium-"));

        // the scan sees what Debezium's metrics call (otherwise the check below would pass on nothing)
        assertThat(uses).extracting(Use::member).contains("<init>", "onEvent", "getLastEvent", "reset", "onFilteredEvent");
        assertThat(LibraryLinkage.unsatisfied(CommonEventMeter.class, uses)).isEmpty();
    }

    @Test
    void lastEventReadsAsDebeziumsSummaryOfThatEventWithItsPositionAsItWasWhenSeen() {
        MovingPosition provider = new MovingPosition();
        CommonEventMeter meter = new CommonEventMeter(Clock.SYSTEM, provider);
        Struct key = new Struct(KEY_SCHEMA).put("id", 42L);

        provider.position.put("pos", "1000");
        String debeziumsSummary = provider.toSummaryString(TABLE, null, key, null);
        meter.onEvent(TABLE, null, key, null, Envelope.Operation.UPDATE);
        provider.position.put("pos", "2000"); // the offset context moves on before anyone reads the attribute

        assertThat(meter.getLastEvent()).isEqualTo(debeziumsSummary).contains("1000").contains("42").doesNotContain("2000");
    }

    @Test
    void eventsAreNotRenderedUntilLastEventIsRead() {
        CommonEventMeter meter = new CommonEventMeter(Clock.SYSTEM, new MovingPosition());
        RenderCountingKey key = new RenderCountingKey();
        for (int i = 0; i < 1_000; i++) {
            meter.onEvent(TABLE, null, key, null, Envelope.Operation.UPDATE);
        }
        // Debezium 3.5's meter renders each of them as it happens
        assertThat(key.renderings).hasValue(0);

        assertThat(meter.getLastEvent()).contains("key#");
        assertThat(key.renderings).hasValue(1);
    }

    @Test
    void countsEveryKindOfEventAndResetsToANewMetersValues() {
        AtomicLong now = new AtomicLong(1_000);
        Clock clock = now::get;
        CommonEventMeter meter = new CommonEventMeter(clock, new MovingPosition());
        assertThat(meter.getLastEvent()).isNull();
        assertThat(meter.getMilliSecondsSinceLastEvent()).isEqualTo(-1);

        Struct key = new Struct(KEY_SCHEMA).put("id", 1L);
        meter.onEvent(TABLE, null, key, null, Envelope.Operation.CREATE);
        meter.onEvent(TABLE, null, key, null, Envelope.Operation.DELETE);
        meter.onEvent(TABLE, null, key, null, Envelope.Operation.TRUNCATE);
        meter.onFilteredEvent();
        meter.onFilteredEvent(Envelope.Operation.UPDATE);
        meter.onErroneousEvent();
        now.set(1_500);
        meter.onErroneousEvent(Envelope.Operation.CREATE);
        now.set(1_750);

        assertThat(meter.getTotalNumberOfEventsSeen()).isEqualTo(7);
        assertThat(meter.getTotalNumberOfCreateEventsSeen()).isEqualTo(2);
        assertThat(meter.getTotalNumberOfUpdateEventsSeen()).isEqualTo(1);
        assertThat(meter.getTotalNumberOfDeleteEventsSeen()).isEqualTo(1);
        assertThat(meter.getNumberOfEventsFiltered()).isEqualTo(2);
        assertThat(meter.getNumberOfErroneousEvents()).isEqualTo(2);
        assertThat(meter.getMilliSecondsSinceLastEvent()).isEqualTo(250);

        meter.reset();
        assertThat(meter.getTotalNumberOfEventsSeen()).isZero();
        assertThat(meter.getTotalNumberOfCreateEventsSeen()).isZero();
        assertThat(meter.getTotalNumberOfUpdateEventsSeen()).isZero();
        assertThat(meter.getTotalNumberOfDeleteEventsSeen()).isZero();
        assertThat(meter.getNumberOfEventsFiltered()).isZero();
        assertThat(meter.getNumberOfErroneousEvents()).isZero();
        assertThat(meter.getMilliSecondsSinceLastEvent()).isEqualTo(-1);
        assertThat(meter.getLastEvent()).isNull();
    }

    /** A key that counts how often it is rendered as text. */
    private static final class RenderCountingKey {
        final AtomicInteger renderings = new AtomicInteger();

        @Override
        public String toString() {
            return "key#" + renderings.incrementAndGet();
        }
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
