package dev.cdccache.verifier.check;

import dev.cdccache.client.staleness.StalenessStatus;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.verifier.instance.ClientInstance;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches the instances while nothing is written and every component runs. The connector's heartbeat
 * (every heartbeat interval, through the binlog) must keep every client's watermark moving, so a quiet
 * database does not make the clients stop trusting, and stop serving, their caches.
 */
public final class IdleFreshness {

    /**
     * @param largestWatermarkAgeMillis per instance, the largest watermark age seen
     * @param unfresh the instances that reported themselves not fresh at some point
     */
    public record Result(Duration watched, Map<String, Long> largestWatermarkAgeMillis, List<String> unfresh,
            String heartbeatRow) {
    }

    private IdleFreshness() {
    }

    /**
     * @param db where the heartbeat row is read at the end, to tell a connector that stopped writing
     *        heartbeats from heartbeats that do not reach the clients
     */
    public static Result watch(List<ClientInstance> instances, Duration duration, MariaDbServer db) {
        Map<String, Long> largest = new LinkedHashMap<>();
        Map<String, Boolean> unfresh = new LinkedHashMap<>();
        long until = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < until) {
            for (ClientInstance instance : instances) {
                StalenessStatus status = instance.status();
                if (status == null) {
                    continue;
                }
                largest.merge(instance.name(), status.watermarkAgeMillis(), Math::max);
                if (!status.fresh()) {
                    unfresh.put(instance.name(), true);
                }
            }
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        return new Result(duration, largest, List.copyOf(unfresh.keySet()), heartbeatRow(db));
    }

    private static String heartbeatRow(MariaDbServer db) {
        try (Connection c = db.adminConnection(null); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT ts, TIMESTAMPDIFF(MICROSECOND, ts, UTC_TIMESTAMP(6)) FROM "
                        + MariaDbServer.HEARTBEAT_TABLE)) {
            return rs.next() ? "heartbeat row ts " + rs.getString(1) + " UTC, written " + rs.getLong(2) / 1000
                    + " ms before the end of the idle period" : "no heartbeat row";
        } catch (SQLException e) {
            return "heartbeat row unreadable: " + e.getMessage();
        }
    }
}
