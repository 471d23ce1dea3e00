package dev.cdccache.client.parsing;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Parsing one change event of the coupon table (twelve columns: DECIMALs as strings, DATEs, a DATETIME(6),
 * VARCHARs; the MariaDB connector's source block): the tree parse the client used before
 * ({@link TreeEnvelopeParser}) against the streaming {@link EnvelopeParser}, keeping every column (as with an
 * invalidation listener registered) and keeping the coupon service's key columns (as without).
 *
 * <p>Run (from the repository root, see docs/benchmarks.md):
 * <pre>
 * ./mvnw -B -q -pl invalidation-client/core -am install -DskipTests
 * ./mvnw -B -q -pl invalidation-client/core test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/jmh.classpath -Dmdep.includeScope=test
 * cd invalidation-client/core &amp;&amp; java -cp target/test-classes:target/classes:$(cat target/jmh.classpath) \
 *     org.openjdk.jmh.Main EnvelopeParseBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EnvelopeParseBenchmark {

    private static final String TOPIC = "cdc.coupon.coupon";

    private final TreeEnvelopeParser treeParser = new TreeEnvelopeParser();
    private final EnvelopeParser streamingParser = new EnvelopeParser();
    private final RowColumns keyColumns = RowColumns.only(EnvelopeCorpus.COUPON_KEY_COLUMNS);
    private byte[] value;

    @Setup
    public void setUp() throws MalformedEventException {
        value = EnvelopeCorpus.couponUpdate().getBytes(StandardCharsets.UTF_8);
        // Measure the same thing: all three read the same event.
        ChangeEvent tree = treeParser.parse(TOPIC, 0, 1, value);
        if (!tree.equals(streamingParser.parse(TOPIC, 0, 1, value))
                || !tree.after().get("code").equals(streamingParser.parse(TOPIC, 0, 1, value, keyColumns).after().get("code"))) {
            throw new IllegalStateException("the parsers disagree on the benchmark's event");
        }
    }

    @Benchmark
    public ChangeEvent treeParse() throws MalformedEventException {
        return treeParser.parse(TOPIC, 0, 1, value);
    }

    @Benchmark
    public ChangeEvent streamingAllColumns() throws MalformedEventException {
        return streamingParser.parse(TOPIC, 0, 1, value);
    }

    @Benchmark
    public ChangeEvent streamingKeyColumns() throws MalformedEventException {
        return streamingParser.parse(TOPIC, 0, 1, value, keyColumns);
    }
}
