package dev.cdccache.client.position;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A commit position on one or more database servers: what a read floor asks a cache to have applied. Immutable and
 * thread-safe.
 *
 * <p>It is a set of {@linkplain Component components}, one per source of GTIDs:
 * <ul>
 *   <li>MariaDB {@code domain-server-sequence} ({@code 0-1-451}): a component per domain and server id. Sequence
 *       numbers grow within a domain, so a position check proving a domain up to a sequence covers every server of
 *       that domain; a change seen on one partition proves that partition only for its own server (two servers
 *       sharing a domain id without replicating each other, e.g. shards left at {@code gtid_domain_id=0}, number
 *       their transactions independently).</li>
 *   <li>MySQL {@code uuid:n} or a GTID set {@code uuid:1-451:460-470}: a component per source server UUID, whose
 *       sequence is the highest transaction number of the set.</li>
 * </ul>
 * The textual form ({@link #toString()}) is the components joined by commas, MariaDB first, e.g.
 * {@code 0-1-451,3e11fa47-71ca-11e1-9e33-c80aa9429562:23}; {@link #parse} reads it back, and also reads
 * {@code @@gtid_binlog_pos} and {@code @@gtid_executed} values.
 */
public final class CommitPosition {

    /** The position that asks for nothing. */
    public static final CommitPosition NONE = new CommitPosition(Map.of());

    /** Longest text {@link #parse} accepts: a position is a handful of GTIDs, not a document. */
    public static final int MAX_TEXT_LENGTH = 4096;

    /**
     * One GTID source of a position.
     *
     * @param domain what a position check proves: the MariaDB domain id, or the MySQL server UUID (lower case)
     * @param source what a change on a partition proves: {@code domain-server} on MariaDB, the UUID on MySQL
     * @param sequence the highest sequence (transaction number) of this source in the position
     */
    public record Component(String domain, String source, long sequence) {
    }

    /** Components by {@link Component#source()}, sorted. */
    private final Map<String, Component> components;

    private CommitPosition(Map<String, Component> components) {
        this.components = components;
    }

    /**
     * Reads a position: GTIDs separated by commas (spaces and newlines around them are ignored), as
     * {@link #toString()} writes them or as {@code @@gtid_binlog_pos}, {@code @@last_gtid} or {@code @@gtid_executed}
     * return them. Empty or blank text is {@link #NONE}.
     *
     * @return the position, or empty if the text is longer than {@value #MAX_TEXT_LENGTH} characters or a component
     *         is not a GTID
     */
    public static Optional<CommitPosition> parse(String text) {
        if (text == null || text.length() > MAX_TEXT_LENGTH) {
            return Optional.empty();
        }
        Map<String, Component> parsed = new TreeMap<>();
        for (String part : text.split(",")) {
            String gtid = part.strip();
            if (gtid.isEmpty()) {
                continue;
            }
            Component component = component(gtid);
            if (component == null) {
                return Optional.empty();
            }
            parsed.merge(component.source(), component, CommitPosition::higher);
        }
        return Optional.of(parsed.isEmpty() ? NONE : new CommitPosition(Collections.unmodifiableMap(parsed)));
    }

    /**
     * The position of the last transaction committed on {@code connection}'s session, read on that connection right
     * after the commit (before it is returned to a pool, where another session's work could follow):
     * <ul>
     *   <li>MariaDB: {@code @@last_gtid}, the GTID of this session's last binlogged transaction; empty if the
     *       session wrote nothing binlogged ({@link #NONE}: nothing to wait for). Another session's later writes are
     *       not waited for.</li>
     *   <li>MySQL (no {@code @@last_gtid}): this server's own transactions in {@code @@gtid_executed}
     *       ({@code @@server_uuid}'s highest number): conservative, it covers every transaction this server
     *       committed so far.</li>
     *   <li>Otherwise {@code @@gtid_binlog_pos}: the whole server's position, every domain included; conservative
     *       too.</li>
     * </ul>
     *
     * @throws SQLException if none of these can be read, or what they return is not a position
     */
    public static CommitPosition ofLastCommit(Connection connection) throws SQLException {
        SQLException failure;
        try {
            return parsed(single(connection, "SELECT @@last_gtid"), "@@last_gtid");
        } catch (SQLException e) {
            failure = e;
        }
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT @@server_uuid, @@gtid_executed")) {
            if (rs.next() && rs.getString(1) != null && rs.getString(2) != null) {
                String uuid = rs.getString(1).toLowerCase(Locale.ROOT);
                for (Component c : parsed(rs.getString(2), "@@gtid_executed").components()) {
                    if (c.source().equals(uuid)) {
                        return parsed(uuid + ":" + c.sequence(), "@@gtid_executed");
                    }
                }
                return NONE;
            }
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
        try {
            return parsed(single(connection, "SELECT @@gtid_binlog_pos"), "@@gtid_binlog_pos");
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
        throw failure;
    }

    private static String single(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static CommitPosition parsed(String text, String variable) throws SQLException {
        if (text == null) {
            return NONE;
        }
        return parse(text).orElseThrow(() -> new SQLException(variable + " is not a GTID position: '" + text + "'"));
    }

    /** One GTID or GTID set of one source, or {@code null} if it is neither. */
    static Component component(String gtid) {
        int colon = gtid.indexOf(':');
        if (colon > 0) {
            String uuid = gtid.substring(0, colon).toLowerCase(Locale.ROOT);
            if (!isUuid(uuid)) {
                return null;
            }
            long highest = -1;
            // uuid:n, or uuid:1-5:7-9 (a GTID set): intervals of transaction numbers.
            for (String interval : gtid.substring(colon + 1).split(":")) {
                int dash = interval.indexOf('-');
                long end = number(dash < 0 ? interval : interval.substring(dash + 1));
                long start = dash < 0 ? end : number(interval.substring(0, dash));
                if (end < 0 || start < 0 || start > end) {
                    return null;
                }
                highest = Math.max(highest, end);
            }
            return new Component(uuid, uuid, highest);
        }
        String[] parts = gtid.split("-");
        if (parts.length != 3) {
            return null;
        }
        long domain = number(parts[0]);
        long server = number(parts[1]);
        long sequence = number(parts[2]);
        if (domain < 0 || server < 0 || sequence < 0) {
            return null;
        }
        return new Component(Long.toString(domain), domain + "-" + server, sequence);
    }

    private static boolean isUuid(String text) {
        if (text.length() != 36) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? c != '-' : Character.digit(c, 16) < 0) {
                return false;
            }
        }
        return true;
    }

    private static Component higher(Component a, Component b) {
        return a.sequence() >= b.sequence() ? a : b;
    }

    /**
     * The position covering this one and {@code other}: per source, the higher sequence. Returns {@code this} when
     * {@code other} asks for nothing more, so callers can tell with {@code ==} whether anything moved.
     */
    public CommitPosition max(CommitPosition other) {
        if (other.components.isEmpty() || other == this) {
            return this;
        }
        Map<String, Component> merged = null;
        for (Component theirs : other.components.values()) {
            Component mine = components.get(theirs.source());
            if (mine == null || mine.sequence() < theirs.sequence()) {
                if (merged == null) {
                    merged = new TreeMap<>(components);
                }
                merged.put(theirs.source(), theirs);
            }
        }
        return merged == null ? this : new CommitPosition(Collections.unmodifiableMap(merged));
    }

    /** The components of this position that {@code keep} accepts. */
    CommitPosition filtered(java.util.function.Predicate<Component> keep) {
        Map<String, Component> kept = new TreeMap<>();
        for (Component c : components.values()) {
            if (keep.test(c)) {
                kept.put(c.source(), c);
            }
        }
        return kept.size() == components.size() ? this
                : kept.isEmpty() ? NONE : new CommitPosition(Collections.unmodifiableMap(kept));
    }

    /** This position with {@code other}'s components in place of its own of the same sources. */
    CommitPosition replacing(CommitPosition other) {
        if (other.components.isEmpty()) {
            return this;
        }
        Map<String, Component> merged = new TreeMap<>(components);
        merged.putAll(other.components);
        return new CommitPosition(Collections.unmodifiableMap(merged));
    }

    /**
     * The components of this position that {@code earlier} does not hold as they are: a source it lacks, or one whose
     * sequence differs. Of a session's position read before and after a commit, what the commit itself wrote;
     * {@link #NONE} if nothing changed (the transaction binlogged nothing).
     */
    public CommitPosition changedSince(CommitPosition earlier) {
        return filtered(c -> !c.equals(earlier.components.get(c.source())));
    }

    /** Whether this position asks for nothing. */
    public boolean isEmpty() {
        return components.isEmpty();
    }

    /** The components, sorted by source. */
    public Collection<Component> components() {
        return components.values();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommitPosition other && components.equals(other.components);
    }

    @Override
    public int hashCode() {
        return components.hashCode();
    }

    /** The textual form {@link #parse} reads: {@code 0-1-451,1-2-33,<uuid>:23}; empty for {@link #NONE}. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        for (Component c : components.values()) {
            if (!text.isEmpty()) {
                text.append(',');
            }
            if (c.domain().equals(c.source())) {
                text.append(c.source()).append(':').append(c.sequence());
            } else {
                text.append(c.source()).append('-').append(c.sequence());
            }
        }
        return text.toString();
    }

    /** A sequence number of at most 19 digits, or {@code -1} if {@code digits} is not one. */
    static long number(String digits) {
        if (digits.isEmpty() || digits.length() > 19) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
            if (value < 0) {
                return -1;
            }
        }
        return value;
    }
}
