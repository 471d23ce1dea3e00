package dev.cdccache.client.position;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The highest commit position (GTID) of every change this client has started to apply, per GTID domain (MariaDB)
 * or per server UUID (MySQL). A change's position is recorded BEFORE its evictions, so a load stamped after an
 * eviction always finds the position of the change behind it here: what a read from a replica must wait for.
 *
 * <p>MariaDB GTIDs are {@code domain-server-sequence}; sequence numbers grow within a domain whichever server
 * wrote them, so the highest per domain is the position. MySQL GTIDs are {@code uuid:n}; the set {@code uuid:1-n}
 * per source server. Written by the consumer thread, read by any; thread-safe.
 */
public final class AppliedPositions {

    /** MariaDB domain id -> {server id, sequence number} of the highest sequence seen. */
    private final ConcurrentMap<Long, long[]> mariaDb = new ConcurrentHashMap<>();
    /** MySQL source UUID -> highest transaction number seen. */
    private final ConcurrentMap<String, Long> mySql = new ConcurrentHashMap<>();
    /**
     * The last GTID recorded. Every row of a transaction carries the same one, and positions only grow, so seeing it
     * again cannot move anything: not parsed again. Anything that ever lowers or clears a position must clear this
     * too, or the same GTID after it would not be recorded. Volatile and written after the maps: were advance
     * called from several threads, one that finds its GTID here would find it in the maps as well.
     */
    private volatile String lastRecorded;

    /**
     * Records a change's GTID ({@code source.gtid}); {@code null}, empty or unparsable values are ignored.
     *
     * @return whether the position moved
     */
    public boolean advance(String gtid) {
        if (gtid == null || gtid.isEmpty() || gtid.equals(lastRecorded)) {
            return false;
        }
        boolean moved = record(gtid);
        lastRecorded = gtid;
        return moved;
    }

    private boolean record(String gtid) {
        int colon = gtid.lastIndexOf(':');
        if (colon > 0) {
            long n = parse(gtid.substring(colon + 1));
            if (n < 0) {
                return false;
            }
            String uuid = gtid.substring(0, colon).toLowerCase(java.util.Locale.ROOT);
            Long before = mySql.get(uuid);
            if (before != null && before >= n) {
                return false;
            }
            mySql.merge(uuid, n, Math::max);
            return true;
        }
        String[] parts = gtid.split("-");
        if (parts.length != 3) {
            return false;
        }
        long domain = parse(parts[0]);
        long server = parse(parts[1]);
        long sequence = parse(parts[2]);
        if (domain < 0 || server < 0 || sequence < 0) {
            return false;
        }
        long[] before = mariaDb.get(domain);
        if (before != null && before[1] >= sequence) {
            return false;
        }
        mariaDb.merge(domain, new long[] {server, sequence}, (a, b) -> a[1] >= b[1] ? a : b);
        return true;
    }

    /** Whether no position was recorded yet. */
    public boolean isEmpty() {
        return mariaDb.isEmpty() && mySql.isEmpty();
    }

    /**
     * The MariaDB GTID position covering every MariaDB change recorded, as {@code MASTER_GTID_WAIT} takes it
     * ({@code 0-1-451,1-2-33}); empty if none.
     */
    public String mariaDbPosition() {
        StringBuilder position = new StringBuilder();
        new TreeMap<>(mariaDb).forEach((domain, last) -> {
            if (!position.isEmpty()) {
                position.append(',');
            }
            position.append(domain).append('-').append(last[0]).append('-').append(last[1]);
        });
        return position.toString();
    }

    /**
     * The MySQL GTID set covering every MySQL change recorded, as {@code WAIT_FOR_EXECUTED_GTID_SET} takes it
     * ({@code uuid:1-23}); empty if none.
     */
    public String mySqlGtidSet() {
        StringBuilder set = new StringBuilder();
        new TreeMap<>(mySql).forEach((uuid, last) -> {
            if (!set.isEmpty()) {
                set.append(',');
            }
            set.append(uuid).append(":1-").append(last);
        });
        return set.toString();
    }

    /** Every recorded position by domain or server UUID, for health details and metrics. */
    public Map<String, String> byDomain() {
        Map<String, String> all = new TreeMap<>();
        mariaDb.forEach((domain, last) -> all.put("domain " + domain, domain + "-" + last[0] + "-" + last[1]));
        mySql.forEach((uuid, last) -> all.put(uuid, uuid + ":" + last));
        return all;
    }

    @Override
    public String toString() {
        String maria = mariaDbPosition();
        String my = mySqlGtidSet();
        return maria.isEmpty() ? my : my.isEmpty() ? maria : maria + ";" + my;
    }

    private static long parse(String digits) {
        return CommitPosition.number(digits);
    }
}
