package dev.cdccache.verifier;

import dev.cdccache.client.StalenessCheck;
import dev.cdccache.verifier.fault.FaultKind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a verification run does: how long it writes, how hard it reads and writes, the staleness bound the
 * clients are configured with, and the faults it injects in turn.
 *
 * <p>{@link #shortForm()} is the two-minute run of the test suite; {@link #longForm(Duration)} the run of
 * the documented command. Both can be adjusted from the command line ({@link #parse}).
 */
public final class VerifierSettings {

    Duration duration = Duration.ofMinutes(10);
    double writesPerSecond = 40;
    int instances = 3;
    int readersPerInstance = 2;
    double readsPerSecondPerReader = 250;
    Duration maxStaleness = Duration.ofSeconds(3);
    /** How the clients check the bound; {@code null} alternates (odd instances every-hit, even scheduled). */
    StalenessCheck stalenessCheck;
    int idSpace = 10_000;
    int initialRows = 7_000;
    int groups = 100;
    int hotKeys = 200;
    /** Share of reader operations (percent) run inside a REPEATABLE READ transaction on the reader's connection. */
    int transactionalReadPercent = 10;
    /**
     * Whether those transactions are made known to the caches ({@code CacheTransaction}); off only as a negative
     * control, which must make the run FAIL.
     */
    boolean transactionProtection = true;
    /**
     * The clients' consistency sampler ({@code sampling.one-in}): one hit of {@code get(key, loader)} in this many is
     * re-read through its loader on the sampler's own thread; 0 is off. Far denser than a production setting, so that
     * a short run classifies thousands of samples.
     */
    int samplingOneIn = 20;
    /** The clients' {@code sampling.max-per-second}: above what the readers' hits draw, so no drawn hit is dropped. */
    int samplingMaxPerSecond = 100;
    /**
     * Negative control for the sampler: one row is changed and its old value put back into one instance's
     * {@code itemById} Caffeine store, where no invalidation will reach it. The run must FAIL, and the sampler must
     * report that value stale.
     */
    boolean plantStaleValue = false;
    int bulkRows = 2_000;
    Duration bulkEvery = Duration.ofSeconds(15);
    Duration truncateEvery = Duration.ofMinutes(3);
    Duration truncateFirstAt = Duration.ofSeconds(50);
    Duration schemaChangeEvery = Duration.ofSeconds(75);
    Duration faultGap = Duration.ofSeconds(5);
    List<FaultKind> faults = new ArrayList<>(List.of(FaultKind.values()));
    /**
     * Whether the plan repeats until the run's duration is over; {@code false} injects each fault once and the run
     * lasts until the last one has converged, even past its duration on a slow host.
     */
    boolean repeatFaults = true;
    Duration convergenceTimeout = Duration.ofSeconds(90);
    /**
     * How long cached values that still differ from the database once the instances converged are compared again
     * before the differences count as a problem: a late eviction gets this long to arrive.
     */
    Duration mismatchSettleTimeout = Duration.ofSeconds(30);
    long seed = 42;
    Path connectorJar = Path.of(System.getProperty("verifier.connector-jar", "target/cdc-connector-exec.jar"));
    /** Connector settings added to the defaults (e.g. coalescing and a column projection), in the order given. */
    final Map<String, String> connectorProperties = new LinkedHashMap<>();
    Path report = Path.of(System.getProperty("verifier.report", "target/consistency-report.md"));
    Path logDir = Path.of(System.getProperty("verifier.log-dir", "target"));

    /** The long form: every fault kind, repeatedly, for {@code duration}. */
    public static VerifierSettings longForm(Duration duration) {
        VerifierSettings s = new VerifierSettings();
        s.duration = duration;
        return s;
    }

    /**
     * The short form for the test suite (two to three minutes in all): a connector kill -9 (down past
     * max-staleness), a Kafka restart, a client restart and a consumer pause, once each. The MariaDB restart
     * (the connector takes up to a minute to notice it) and the graceful connector outage are left to the
     * long form.
     */
    public static VerifierSettings shortForm() {
        VerifierSettings s = new VerifierSettings();
        s.duration = Duration.ofSeconds(90);
        s.faultGap = Duration.ofSeconds(3);
        s.faults = new ArrayList<>(List.of(FaultKind.CONNECTOR_KILL, FaultKind.MARIADB_RESTART,
                FaultKind.KAFKA_RESTART, FaultKind.CLIENT_RESTART, FaultKind.CLIENT_PAUSE));
        s.repeatFaults = false;
        s.bulkEvery = Duration.ofSeconds(12);
        s.truncateFirstAt = Duration.ofSeconds(40);
        s.schemaChangeEvery = Duration.ofSeconds(30);
        return s;
    }

    /**
     * Applies command-line options to {@code base}: {@code --duration 10m}, {@code --write-rate 40},
     * {@code --read-rate 250} (per reader thread), {@code --readers 2} (per instance),
     * {@code --max-staleness 3s}, {@code --staleness-check every-hit|scheduled|mixed} (default mixed: odd
     * instances every-hit, even ones scheduled), {@code --faults connector-kill,kafka-restart,...} (default: all; {@code none} for none),
     * {@code --fault-gap 5s}, {@code --seed 42}, {@code --report path}, {@code --connector-jar path},
     * {@code --connector-property name=value} (repeatable: a connector setting added to the defaults),
     * {@code --transactional-reads 10}, {@code --transaction-protection on|off}, {@code --sampling-one-in 20} (0: off),
     * {@code --sampling-max-per-second 100}.
     */
    public static VerifierSettings parse(String[] args) {
        VerifierSettings s = longForm(Duration.ofMinutes(10));
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--duration" -> s.duration = duration(value);
                case "--write-rate" -> s.writesPerSecond = Double.parseDouble(value);
                case "--read-rate" -> s.readsPerSecondPerReader = Double.parseDouble(value);
                case "--readers" -> s.readersPerInstance = Integer.parseInt(value);
                case "--max-staleness" -> s.maxStaleness = duration(value);
                case "--staleness-check" -> s.stalenessCheck = stalenessCheck(value);
                case "--fault-gap" -> s.faultGap = duration(value);
                case "--seed" -> s.seed = Long.parseLong(value);
                case "--report" -> s.report = Path.of(value);
                case "--connector-jar" -> s.connectorJar = Path.of(value);
                case "--connector-property" -> {
                    int eq = value.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--connector-property takes name=value, was " + value);
                    }
                    s.connectorProperties.put(value.substring(0, eq).trim(), value.substring(eq + 1).trim());
                }
                case "--transactional-reads" -> s.transactionalReadPercent = percent(value);
                case "--transaction-protection" -> s.transactionProtection = onOff(option, value);
                case "--sampling-one-in" -> s.samplingOneIn = atLeast(option, value, 0);
                case "--sampling-max-per-second" -> s.samplingMaxPerSecond = atLeast(option, value, 1);
                case "--faults" -> {
                    s.faults = new ArrayList<>();
                    for (String name : value.equals("none") ? new String[0] : value.split(",")) {
                        s.faults.add(FaultKind.valueOf(name.trim().toUpperCase(Locale.ROOT).replace('-', '_')));
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + option
                        + " (known: --duration --write-rate --read-rate --readers --max-staleness --staleness-check --faults"
                        + " --fault-gap --seed --report --connector-jar --connector-property --transactional-reads"
                        + " --transaction-protection"
                        + " --sampling-one-in --sampling-max-per-second)");
            }
        }
        return s;
    }

    static int percent(String text) {
        int value = Integer.parseInt(text.trim());
        if (value < 0 || value > 100) {
            throw new IllegalArgumentException("--transactional-reads is a percentage (0-100), was " + text);
        }
        return value;
    }

    static int atLeast(String option, String text, int min) {
        int value = Integer.parseInt(text.trim());
        if (value < min) {
            throw new IllegalArgumentException(option + " must be at least " + min + ", was " + text);
        }
        return value;
    }

    static boolean onOff(String option, String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> throw new IllegalArgumentException(option + " must be on or off, was " + text);
        };
    }

    /**
     * The negative control: readers run a share of their operations in REPEATABLE READ transactions that the caches
     * are not told about, so values from old snapshots and rolled-back writes reach the caches. A correct verifier
     * reports FAIL for it.
     */
    public VerifierSettings withoutTransactionProtection(int transactionalReadPercent) {
        this.transactionProtection = false;
        this.transactionalReadPercent = transactionalReadPercent;
        return this;
    }

    /**
     * The sampler's negative control: one old value planted in one instance's cache, with no invalidation to come
     * (see {@link #plantStaleValue}). A correct verifier reports FAIL, and the sampler reports the value stale.
     */
    public VerifierSettings withPlantedStaleValue() {
        this.plantStaleValue = true;
        return this;
    }

    /** Whether the clients run their consistency sampler. */
    public boolean samplingOn() {
        return samplingOneIn > 0;
    }

    public int samplingOneIn() {
        return samplingOneIn;
    }

    /** {@code every-hit}, {@code scheduled}, or {@code mixed} ({@code null}: instances alternate). */
    static StalenessCheck stalenessCheck(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "mixed" -> null;
            case "every-hit" -> StalenessCheck.EVERY_HIT;
            case "scheduled" -> StalenessCheck.SCHEDULED;
            default -> throw new IllegalArgumentException(
                    "--staleness-check must be every-hit, scheduled or mixed, was " + text);
        };
    }

    /** {@code 90s}, {@code 10m}, {@code 1500ms}, {@code 1h} or ISO-8601. */
    static Duration duration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("p")) {
            return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
        }
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        long amount = Long.parseLong(t.substring(0, t.length() - 1));
        return switch (t.charAt(t.length() - 1)) {
            case 's' -> Duration.ofSeconds(amount);
            case 'm' -> Duration.ofMinutes(amount);
            case 'h' -> Duration.ofHours(amount);
            default -> throw new IllegalArgumentException("not a duration: " + text + " (use e.g. 90s, 10m)");
        };
    }

    public Duration duration() {
        return duration;
    }

    public Duration maxStaleness() {
        return maxStaleness;
    }

    /** The staleness check of client instance {@code instance} (1-based). */
    public StalenessCheck stalenessCheckOf(int instance) {
        if (stalenessCheck != null) {
            return stalenessCheck;
        }
        return instance % 2 == 1 ? StalenessCheck.EVERY_HIT : StalenessCheck.SCHEDULED;
    }

    /** {@code every-hit} or {@code scheduled}, as the setting is written. */
    public static String name(StalenessCheck check) {
        return check.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public VerifierSettings report(Path report) {
        this.report = report;
        return this;
    }

    public VerifierSettings connectorJar(Path jar) {
        this.connectorJar = jar;
        return this;
    }

    public Path report() {
        return report;
    }

    @Override
    public String toString() {
        return "duration " + duration.toSeconds() + " s, " + instances + " client instances x " + readersPerInstance
                + " readers at " + (int) readsPerSecondPerReader + " reads/s, writer at " + (int) writesPerSecond
                + " tx/s, max-staleness " + maxStaleness.toMillis() + " ms, staleness check "
                + (stalenessCheck == null ? "mixed (odd instances every-hit, even scheduled)" : name(stalenessCheck))
                + ", ids 1.." + idSpace + " ("
                + initialRows + " rows at start, " + hotKeys + " hot), " + groups + " groups, bulk update of "
                + bulkRows + " ids every " + bulkEvery.toSeconds() + " s, " + transactionalReadPercent
                + "% of reads inside REPEATABLE READ transactions" + (transactionProtection ? "" : " NOT made known to"
                        + " the caches (negative control)") + ", consistency sampling " + (samplingOneIn == 0 ? "off"
                        : "one hit in " + samplingOneIn + " (at most " + samplingMaxPerSecond + "/s per instance)")
                + (plantStaleValue ? ", one old value planted in a cache (negative control)" : "") + ", faults " + faults
                + (repeatFaults ? " repeated" : " once each") + ", seed " + seed
                + (connectorProperties.isEmpty() ? "" : ", connector settings " + connectorProperties);
    }
}
