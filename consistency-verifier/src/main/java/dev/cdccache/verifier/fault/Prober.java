package dev.cdccache.verifier.fault;

import dev.cdccache.client.staleness.StalenessStatus;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.verifier.RunClock;
import dev.cdccache.verifier.instance.ClientInstance;
import dev.cdccache.verifier.schema.VerifierSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures convergence: commits a write to the probe table and waits until every client instance has
 * applied it and proves, through its own watermark, that it has applied every change committed before a
 * given moment.
 */
public final class Prober {

    private static final Logger LOG = LoggerFactory.getLogger(Prober.class);

    private final MariaDbServer db;
    private final RunClock clock;
    private long seq;

    public Prober(MariaDbServer db, RunClock clock) {
        this.db = db;
        this.clock = clock;
    }

    /** Creates the probe row. */
    public void init() {
        db.execute(VerifierSchema.DATABASE, "INSERT INTO " + VerifierSchema.PROBE_TABLE + " (id, seq) VALUES (1, 0)");
    }

    /** Commits the next probe value (retrying while the database is unreachable) and returns it. */
    public long write(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long next = ++seq;
        while (true) {
            try (Connection c = db.adminConnection(VerifierSchema.DATABASE);
                    PreparedStatement ps = c.prepareStatement(
                            "UPDATE " + VerifierSchema.PROBE_TABLE + " SET seq = ? WHERE id = 1")) {
                ps.setLong(1, next);
                ps.executeUpdate();
                return next;
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot write the probe row: " + e.getMessage(), e);
                }
                LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            }
        }
    }

    /**
     * Waits until every instance has applied probe {@code seq} and its watermark covers {@code since}
     * (every change committed before it is applied) and it reports itself fresh.
     *
     * @return the time all instances got there, or {@code -1} on timeout
     */
    public long awaitConverged(List<ClientInstance> instances, long seq, long since, Duration timeout) {
        long deadline = clock.now() + timeout.toNanos();
        long sinceWall = clock.wallMillis(since) + 1;
        long nextLog = clock.now() + Duration.ofSeconds(5).toNanos();
        while (clock.now() < deadline) {
            if (clock.now() > nextLog) {
                LOG.info("Waiting for convergence (probe {}, since {}): {}", seq, clock.format(since),
                        describe(instances, seq));
                nextLog = clock.now() + Duration.ofSeconds(5).toNanos();
            }
            boolean all = true;
            for (ClientInstance instance : instances) {
                if (!caughtUp(instance, seq, sinceWall)) {
                    all = false;
                    break;
                }
            }
            if (all) {
                return clock.now();
            }
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
        return -1;
    }

    /** Whether an instance has applied {@code seq} and proves to have applied everything before {@code sinceWall}. */
    public static boolean caughtUp(ClientInstance instance, long seq, long sinceWall) {
        StalenessStatus status = instance.status();
        return status != null && instance.probeSeq() >= seq && status.fresh() && status.watermarkMillis() >= sinceWall;
    }

    /** A one-line description of where each instance stands, for failure messages. */
    public static String describe(List<ClientInstance> instances, long seq) {
        StringBuilder text = new StringBuilder();
        for (ClientInstance instance : instances) {
            StalenessStatus status = instance.status();
            text.append(instance.name()).append(": probe ").append(instance.probeSeq()).append('/').append(seq)
                    .append(", ").append(status).append("; ");
        }
        return text.toString();
    }
}
