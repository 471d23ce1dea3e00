package dev.cdccache.connector.continuity;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a connector's stored offsets were written under, kept next to them in the same offset store: the server
 * they point into, the tables they were captured for, the epoch heartbeats carried meanwhile, and which process
 * wrote them. Written before the engine starts, so every offset the engine stores afterwards belongs to it; read at
 * the next start and compared with the present, so that a position from another server, another capture
 * configuration or another epoch is never resumed from silently.
 *
 * @param server the server the offsets point into
 * @param tables the captured data tables, lower-case {@code db.table}, sorted, comma-separated
 * @param epoch the epoch published while these offsets were written ({@code ""} with heartbeats off)
 * @param instance the process that wrote them
 */
public record OffsetsOrigin(ServerIdentity server, String tables, String epoch, Instance instance) {

    public OffsetsOrigin {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(tables, "tables");
        Objects.requireNonNull(epoch, "epoch");
        Objects.requireNonNull(instance, "instance");
    }

    /**
     * A running connector process.
     *
     * @param host the host name it runs on
     * @param pid its process id
     * @param since when it started
     * @param leaseSession the database session id that holds its lease ({@code CONNECTION_ID()}), 0 when unknown
     */
    public record Instance(String host, long pid, Instant since, long leaseSession) {

        public Instance {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(since, "since");
        }

        @Override
        public String toString() {
            return "pid " + pid + " on host " + host + ", running since " + since;
        }
    }

    /** As stored in the offset store (a JSON object without schema). */
    Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>(server.toMap());
        map.put("tables", tables);
        map.put("epoch", epoch);
        map.put("host", instance.host());
        map.put("pid", instance.pid());
        map.put("since", instance.since().toString());
        map.put("lease_session", instance.leaseSession());
        return map;
    }

    /** Reads a stored record; null when it is not one (written by another version, or damaged). */
    static OffsetsOrigin fromMap(Map<?, ?> map) {
        try {
            return new OffsetsOrigin(ServerIdentity.fromMap(map), String.valueOf(map.get("tables")),
                    String.valueOf(map.get("epoch")),
                    new Instance(String.valueOf(map.get("host")), ((Number) map.get("pid")).longValue(),
                            Instant.parse(String.valueOf(map.get("since"))), ((Number) map.get("lease_session")).longValue()));
        } catch (RuntimeException e) {
            return null;
        }
    }
}
