package dev.cdccache.client.parsing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EnvelopeParserTest {

    private final EnvelopeParser parser = new EnvelopeParser();

    private ChangeEvent parse(String json) throws MalformedEventException {
        return parser.parse("cdc.shop.item", 1, 42, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsAnEnvelopeWithoutSchemaIgnoringUnknownFields() throws Exception {
        ChangeEvent event = parse("""
                {"before":{"id":1,"code":"A"},"after":{"id":1,"code":"B"},
                 "source":{"version":"3.5.0.Final","connector":"mariadb","db":"shop","table":"item",
                           "ts_ms":1700000000000,"file":"bin.000001","pos":4,"gtid":null,"future":{"x":1}},
                 "op":"u","ts_ms":1700000000123,"transaction":null,"somethingNew":[1,2]}""");
        assertThat(event.operation()).isEqualTo(Operation.UPDATE);
        assertThat(event.before().get("code").asString()).isEqualTo("A");
        assertThat(event.after().get("code").asString()).isEqualTo("B");
        assertThat(event.database()).isEqualTo("shop");
        assertThat(event.table()).isEqualTo("item");
        assertThat(event.sourceTimestampMillis()).isEqualTo(1700000000000L);
        assertThat(event.eventTimestampMillis()).isEqualTo(1700000000123L);
        assertThat(event.topic()).isEqualTo("cdc.shop.item");
        assertThat(event.partition()).isEqualTo(1);
        assertThat(event.offset()).isEqualTo(42);
    }

    @Test
    void readsTheMarkerOfACoalescedEvictionAndNothingElseForOtherEvents() throws Exception {
        ChangeEvent event = parse("""
                {"before":null,"after":null,"source":{"gtid":"0-1-77"},"op":"u","truncated_columns":["*"],
                 "coalesced":{"transaction":"0-1-77","eviction":"e-1","rows_published":10000,"partitions":3,"new":{}}}""");
        assertThat(event.coalesced()).isEqualTo(new ChangeEvent.Coalesced("0-1-77", "e-1", 10000));
        assertThat(event.truncatedColumns()).containsExactly("*");
        assertThat(parse("{\"op\":\"u\",\"coalesced\":{}}").coalesced()).isEqualTo(new ChangeEvent.Coalesced("", ""));
        assertThat(parse("{\"op\":\"u\",\"coalesced\":{\"rows_published\":\"7\"}}").coalesced().rowsPublished())
                .isEqualTo(-1);
        assertThat(parse("{\"op\":\"u\",\"coalesced\":{\"rows_published\":123456789012345678901234}}").coalesced()
                .rowsPublished()).isEqualTo(-1);
        assertThat(parse("{\"op\":\"u\",\"coalesced\":null}").coalesced()).isNull();
        assertThat(parse("{\"op\":\"u\",\"coalesced\":[1]}").coalesced()).isNull();
        assertThat(parse("{\"op\":\"u\"}").coalesced()).isNull();
    }

    @Test
    void readsAnEnvelopeWithEmbeddedSchema() throws Exception {
        ChangeEvent event = parse("""
                {"schema":{"type":"struct","fields":[],"name":"cdc.shop.item.Envelope"},
                 "payload":{"before":null,"after":{"id":7},"source":{"db":"shop","table":"item","ts_ms":5},"op":"c"}}""");
        assertThat(event.operation()).isEqualTo(Operation.CREATE);
        assertThat(event.before()).isNull();
        assertThat(event.after().get("id").asLong()).isEqualTo(7);
        assertThat(event.sourceTimestampMillis()).isEqualTo(5);
    }

    @Test
    void readsEveryOperationCodeIncludingTruncate() throws Exception {
        assertThat(parse("{\"op\":\"r\",\"after\":{\"id\":1}}").operation()).isEqualTo(Operation.READ);
        assertThat(parse("{\"op\":\"d\",\"before\":{\"id\":1}}").operation()).isEqualTo(Operation.DELETE);
        ChangeEvent truncate = parse("{\"before\":null,\"after\":null,\"op\":\"t\",\"source\":{\"db\":\"shop\",\"table\":\"item\"}}");
        assertThat(truncate.operation()).isEqualTo(Operation.TRUNCATE);
        assertThat(truncate.before()).isNull();
        assertThat(truncate.after()).isNull();
        assertThat(truncate.sourceTimestampMillis()).isEqualTo(-1);
    }

    @Test
    void rejectsBytesThatAreNotJson() {
        assertThatThrownBy(() -> parse("{\"op\":\"u\", garbage"))
                .isInstanceOf(MalformedEventException.class)
                .extracting(e -> ((MalformedEventException) e).reason())
                .isEqualTo(MalformedEventException.Reason.MALFORMED_JSON);
    }

    @Test
    void rejectsJsonThatIsNotAnEnvelope() {
        assertThatThrownBy(() -> parse("[1,2,3]")).extracting(e -> ((MalformedEventException) e).reason())
                .isEqualTo(MalformedEventException.Reason.NOT_AN_ENVELOPE);
        assertThatThrownBy(() -> parse("{\"id\":1}")).extracting(e -> ((MalformedEventException) e).reason())
                .isEqualTo(MalformedEventException.Reason.NOT_AN_ENVELOPE);
    }

    @Test
    void rejectsAnUnknownOperation() {
        assertThatThrownBy(() -> parse("{\"op\":\"x\",\"after\":{\"id\":1}}"))
                .extracting(e -> ((MalformedEventException) e).reason())
                .isEqualTo(MalformedEventException.Reason.UNEXPECTED_OPERATION);
    }
}
