package dev.cdccache.client.parsing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The streaming {@link EnvelopeParser} against the tree parse it replaced ({@link TreeEnvelopeParser}, the
 * oracle): for every input, the same {@link ChangeEvent} (row values node for node), or the same
 * {@link MalformedEventException} (reason and message, which the consumer counts and logs). Over a generated
 * corpus, over every prefix of real envelopes (truncated JSON), and over hand-picked malformed values.
 */
class EnvelopeParserEquivalenceTest {

    private static final String TOPIC = "cdc.coupon.coupon";
    private static final Set<String> KEY_COLUMNS = EnvelopeCorpus.COUPON_KEY_COLUMNS;

    private final EnvelopeParser parser = new EnvelopeParser();
    private final TreeEnvelopeParser oracle = new TreeEnvelopeParser();

    @Test
    void aGeneratedCorpusParsesExactlyAsTheTreeParseDid() {
        EnvelopeCorpus corpus = new EnvelopeCorpus(new Random(20_260_301L));
        Map<String, Integer> outcomes = new java.util.TreeMap<>();
        for (int i = 0; i < 20_000; i++) {
            String envelope = corpus.next();
            outcomes.merge(assertSameOutcome(envelope), 1, Integer::sum);
        }
        // The corpus reaches every outcome, not only the happy path.
        assertThat(outcomes.keySet()).contains("event", "event truncated", "event with schema", "not_an_envelope",
                "unexpected_op");
        assertThat(outcomes.get("event")).isGreaterThan(10_000);
    }

    @Test
    void everyPrefixOfAnEnvelopeFailsExactlyAsTheTreeParseDid() {
        List<String> envelopes = List.of(EnvelopeCorpus.couponUpdate(),
                "{\"schema\":{\"type\":\"struct\"},\"payload\":{\"op\":\"c\",\"after\":{\"id\":1,\"j\":[1,{\"a\":\"\\u00e9\"}]}}}");
        for (String envelope : envelopes) {
            byte[] bytes = envelope.getBytes(StandardCharsets.UTF_8);
            for (int length = 0; length <= bytes.length; length++) {
                assertSameOutcome(java.util.Arrays.copyOf(bytes, length));
            }
        }
    }

    @Test
    void malformedValuesFailWithTheSameReasonAndMessage() {
        List<String> values = List.of(
                "", "   ", "null", "42", "42 43", "\"op\"", "[1,2,3]", "[1,2", "[{\"op\":\"c\"}]", "true",
                "{\"op\":\"c\"} {\"op\":\"d\"}", "{\"op\":\"c\"} garbage", "{\"op\":\"c\"}]", "{\"op\":\"c\"},",
                "{\"op\":\"c\"}\n", "{\"op\":\"c\"} null",
                "{\"id\":1}", "{\"op\":null}", "{\"op\":5}", "{\"op\":[\"c\"]}", "{\"op\":{}}", "{\"op\":\"\"}",
                "{\"op\":\"x\"}", "{\"op\":\"cc\"}", "{\"op\":\"C\"}", "{\"op\":\"c\",\"op\":5}", "{\"op\":5,\"op\":\"u\"}",
                "{\"op\":\"\\u0063\"}", "{\"\\u006fp\":\"d\"}", "{\"op\":\"\\u12G4\"}", "{\"op\":\"c\\x\"}",
                "{\"op\":\"c\",}", "{\"op\":\"c\" \"after\":{}}", "{op:\"c\"}", "{'op':'c'}", "{\"op\":\"c\",\"after\":{\"id\":01}}",
                "{\"op\":\"c\",\"after\":{\"id\":NaN}}", "{\"op\":\"c\",\"after\":{\"id\":-}}", "{\"op\":\"c\",\"after\":{\"id\":1.}}",
                "{\"op\":\"c\",\"after\":{\"id\":\"unterminated}}", "{\"op\":\"c\",\"after\":{\"a\":\"tab\there\"}}",
                "{\"op\":\"c\",\"source\":{\"table\":\"t\",\"pos\":[1,{\"x\":}]}}",
                "{\"op\":\"c\",\"transaction\":{\"id\":\"0-1-2\",\"total_order\":1e}}",
                "{\"op\":\"c\",\"ts_ms\":" + "9".repeat(2_000) + "}",
                "{\"op\":\"c\",\"source\":{\"pos\":" + "9".repeat(2_000) + "}}",
                "{\"op\":\"c\",\"after\":{\"skipped\":" + "1".repeat(1_500) + ".5}}",
                "{\"op\":\"c\",\"after\":" + "[".repeat(1_200) + "]".repeat(1_200) + "}",
                "{\"op\":\"c\",\"unknown\":" + "{\"a\":".repeat(1_200) + "1" + "}".repeat(1_200) + "}",
                "{\"op\":\"c\",\"after\":{\"deep\":" + "[".repeat(400) + "]".repeat(400) + "}}",
                "{\"schema\":null,\"payload\":{\"op\":\"u\",\"before\":{\"id\":1}}}",
                "{\"payload\":{\"op\":\"u\"},\"op\":\"c\"}", "{\"schema\":{},\"payload\":5,\"op\":\"c\"}",
                "{\"schema\":{},\"payload\":{\"op\":\"u\"},\"payload\":[],\"op\":\"d\"}",
                "{\"schema\":{},\"payload\":{\"op\":\"u\",\"payload\":{\"op\":\"t\"},\"schema\":{}}}",
                "{\"op\":\"c\",\"source\":{\"db\":\"a\",\"ts_ms\":3},\"source\":{\"table\":\"b\"}}",
                "{\"op\":\"c\",\"source\":{\"db\":\"a\"},\"source\":null}",
                "{\"op\":\"c\",\"after\":{\"id\":1},\"after\":[1]}", "{\"op\":\"c\",\"after\":{\"id\":1,\"id\":\"2\"}}",
                "{\"op\":\"c\",\"truncated_columns\":[\"a\",{\"b\":1},[2],null]}");
        for (String value : values) {
            assertSameOutcome(value);
        }
        // Bytes that are not UTF-8, and a byte-order mark.
        assertSameOutcome(new byte[] {'{', '"', 'o', 'p', '"', ':', '"', (byte) 0xC3, '"', '}'});
        assertSameOutcome(new byte[] {(byte) 0xFF, (byte) 0xFE, '{', '}'});
        assertSameOutcome(("\uFEFF{\"op\":\"c\"}").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A string beyond the parser's length limit is rejected wherever it is, also in a field the streaming parser
     * never decodes. The limit is lowered here so that the test need not build a 20 MB value.
     */
    @Test
    void aStringBeyondTheLengthLimitIsRejectedEvenInASkippedField() {
        JsonMapper strict = JsonMapper.builder(JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(1_000).build()).build()).build();
        EnvelopeParser limited = new EnvelopeParser(strict);
        TreeEnvelopeParser limitedOracle = new TreeEnvelopeParser(strict);
        String huge = "\"" + "x".repeat(5_000) + "\"";
        String withinLimitButLong = "\"" + "\\u0041".repeat(400) + "\""; // 2,400 bytes, 400 characters
        for (String value : List.of(
                "{\"op\":\"c\",\"after\":{\"id\":1,\"description\":" + huge + "}}",
                "{\"op\":\"c\",\"source\":{\"query\":" + huge + "},\"after\":{\"id\":1}}",
                "{\"op\":\"c\",\"transaction\":{\"id\":" + huge + "}}",
                "{\"schema\":{\"doc\":" + huge + "},\"payload\":{\"op\":\"c\"}}",
                "{\"op\":\"c\",\"after\":{\"id\":1,\"description\":" + withinLimitButLong + "}}")) {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            for (RowColumns columns : List.of(RowColumns.all(), RowColumns.only(KEY_COLUMNS))) {
                Outcome expected = outcome(() -> ChangeEvents.keepingOnly(limitedOracle.parse(TOPIC, 0, 1, bytes), columns));
                Outcome actual = outcome(() -> limited.parse(TOPIC, 0, 1, bytes, columns));
                assertThat(actual.withoutLengthReached()).as(value.substring(0, 60))
                        .isEqualTo(expected.withoutLengthReached());
            }
        }
        assertThat(outcome(() -> limited.parse(TOPIC, 0, 1, ("{\"op\":\"c\",\"source\":{\"query\":" + huge + "}}")
                .getBytes(StandardCharsets.UTF_8))).failure()).startsWith("malformed_json");
    }

    @Test
    void keepingOnlySomeColumnsDropsTheOthersAndNothingElse() throws Exception {
        ChangeEvent event = parser.parse(TOPIC, 0, 1, EnvelopeCorpus.couponUpdate().getBytes(StandardCharsets.UTF_8),
                RowColumns.only(Set.of("code", "not_a_column")));
        ChangeEvent full = oracle.parse(TOPIC, 0, 1, EnvelopeCorpus.couponUpdate().getBytes(StandardCharsets.UTF_8));
        assertThat(event.after().propertyNames()).containsExactly("code");
        assertThat(event.before().get("code")).isEqualTo(full.before().get("code"));
        assertThat(event).isEqualTo(new ChangeEvent(full.topic(), full.partition(), full.offset(), full.operation(),
                event.before(), event.after(), full.database(), full.table(), full.sourceTimestampMillis(),
                full.eventTimestampMillis(), full.truncatedColumns(), full.gtid(), full.coalesced()));
        ChangeEvent none = parser.parse(TOPIC, 0, 1, EnvelopeCorpus.couponUpdate().getBytes(StandardCharsets.UTF_8),
                RowColumns.only(Set.of()));
        assertThat(none.before()).isNotNull().isEmpty(); // a row image is still there: the key is just not in it
        assertThat(none.after()).isNotNull().isEmpty();
    }

    /** Asserts both parsers agree on {@code value}, keeping all columns and keeping the key columns; the outcome. */
    private String assertSameOutcome(String value) {
        return assertSameOutcome(value.getBytes(StandardCharsets.UTF_8));
    }

    private String assertSameOutcome(byte[] value) {
        String text = new String(value, StandardCharsets.UTF_8);
        Outcome expected = outcome(() -> oracle.parse(TOPIC, 3, 99, value));
        assertThat(outcome(() -> parser.parse(TOPIC, 3, 99, value))).as(text).isEqualTo(expected);
        Outcome expectedKeys = outcome(() -> ChangeEvents.keepingOnly(oracle.parse(TOPIC, 3, 99, value), RowColumns.only(KEY_COLUMNS)));
        assertThat(outcome(() -> parser.parse(TOPIC, 3, 99, value, RowColumns.only(KEY_COLUMNS)))).as(text)
                .isEqualTo(expectedKeys);
        if (expected.event() == null) {
            return expected.failure().substring(0, expected.failure().indexOf(':'));
        }
        String kind = expected.event().truncated() ? "event truncated" : "event";
        return text.contains("\"payload\":{") && text.contains("\"schema\"") && !expected.event().truncated()
                ? "event with schema" : kind;
    }

    private interface Parse {
        ChangeEvent run() throws MalformedEventException;
    }

    /** An event, or a failure as the consumer reports it: {@code reason: message}. */
    record Outcome(ChangeEvent event, String failure) {

        /**
         * The length Jackson reports for a string over the limit is where its buffer segments happened to be
         * checked, which depends on the recycled buffers of earlier parses, not on the input: masked.
         */
        Outcome withoutLengthReached() {
            return failure == null ? this
                    : new Outcome(null, failure.replaceAll("String value length \\(\\d+\\)", "String value length (n)"));
        }
    }

    private static Outcome outcome(Parse parse) {
        try {
            return new Outcome(parse.run(), null);
        } catch (MalformedEventException e) {
            return new Outcome(null, e.reason().tag() + ": " + e.getMessage());
        }
    }
}
