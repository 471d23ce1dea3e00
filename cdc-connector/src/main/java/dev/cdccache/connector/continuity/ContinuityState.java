package dev.cdccache.connector.continuity;

import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connector's current {@link Continuity}, set by {@link ContinuityCheck} before the engine starts and read by
 * the heartbeat writer and health. Every epoch it starts (not one it resumes) is handed to a listener, the
 * connector's metrics. Thread-safe.
 */
public final class ContinuityState {

    private static final Logger LOG = LoggerFactory.getLogger(ContinuityState.class);

    private final AtomicReference<Continuity> current = new AtomicReference<>();
    private final AtomicReference<String> engineFailure = new AtomicReference<>();
    /** Every incident event starting before this place is covered by the epoch in force (null: none known). */
    private final AtomicReference<BinlogPosition> incidentsCovered = new AtomicReference<>();
    private final Consumer<Continuity> onNewEpoch;

    /**
     * At most one ERROR line in this time for epochs renewed while streaming for the same verdict and form (a statement's
     * kind and table); the metrics count every one.
     */
    private static final long LOG_INTERVAL_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    /** Per verdict and form: when its line was last logged, and how many renewals since were not; the latest 64. */
    private final java.util.Map<String, long[]> logged = new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<String, long[]> eldest) {
            return size() > 64;
        }
    };

    /** A state that tells nobody about new epochs. */
    public ContinuityState() {
        this(continuity -> { });
    }

    /**
     * @param onNewEpoch called with every continuity whose epoch this process started (a first start, a gap, a
     *     statement in the binlog), not with one that resumed the stored epoch; called on the thread that set it
     */
    public ContinuityState(Consumer<Continuity> onNewEpoch) {
        this.onNewEpoch = onNewEpoch;
    }

    /** Records the verdict of a start-up check. */
    public void set(Continuity continuity) {
        Continuity previous = current.getAndSet(continuity);
        engineFailure.set(null);
        boolean started = continuity.verdict() != Continuity.Verdict.RESUMED
                && (previous == null || !previous.epoch().equals(continuity.epoch()));
        if (started) {
            onNewEpoch.accept(continuity);
        }
    }

    /**
     * Records, at start-up, up to where the binlog's incident events are covered by the epoch decided: the stored
     * position a resumed epoch was published up to, or the binlog's end when a new epoch was decided. A server that
     * resumes a reader by GTID sends the incident events of the file it resumes in again; those are not renewed for.
     *
     * @param before every incident event starting before this place is covered; null when unknown (every incident
     *     event read renews the epoch)
     */
    public void coverIncidentsBefore(BinlogPosition before) {
        incidentsCovered.set(before);
    }

    /**
     * Records that the epoch in force covers the incident event at {@code at} (its heartbeat row is written): the
     * server sends it again when the reader reconnects.
     */
    public void coverIncident(BinlogPosition at) {
        if (at != null) {
            incidentsCovered.accumulateAndGet(at.next(), (now, past) -> now == null ? past : now.laterOf(past));
        }
    }

    /** Whether an incident event starting at {@code at} is covered by the epoch in force (read before, or older). */
    public boolean coversIncident(BinlogPosition at) {
        BinlogPosition covered = incidentsCovered.get();
        return at != null && covered != null && at.isBefore(covered);
    }

    /** The verdict of the last start-up check, empty before the first. */
    public Optional<Continuity> current() {
        return Optional.ofNullable(current.get());
    }

    /** The epoch heartbeats carry; null until the start-up check decided it (no heartbeat is written before). */
    public String epochOrNull() {
        Continuity c = current.get();
        return c == null ? null : c.epoch();
    }

    /**
     * Replaces the epoch because the binlog held a row change as a statement: the caller then writes the heartbeat row
     * with it at once, so that the row lands in the binlog right behind the statement and every client drops what it
     * cached of the captured tables once it has read up to there. Heartbeats of the old epoch still in the pipeline
     * are not published ({@code HeartbeatRecords}).
     *
     * @return the new epoch; null (and nothing renewed) before the start-up check decided one
     */
    public String renewForStatement(String sql, Clock clock) {
        String form = abbreviate(sql);
        return renew(Continuity.Verdict.STATEMENT_IN_BINLOG, form, epochs -> "A row change reached the binlog as an SQL"
                + " statement, not as rows (" + form + "): the connector cannot read which rows it changed. " + epochs,
                "Set binlog_format=ROW globally (SET GLOBAL binlog_format='ROW' and in the server's configuration) and"
                        + " find the writer that runs with STATEMENT or MIXED: sessions opened before a global change keep"
                        + " the old format, and a user with BINLOG ADMIN or SUPER can change it per session. Until then"
                        + " every such statement drops the clients' caches of the captured tables.", clock);
    }

    /**
     * Replaces the epoch because the binlog held an event that may have changed rows but that cannot be read (see
     * {@link Continuity.Verdict#UNREADABLE_EVENT_IN_BINLOG}); the caller writes the heartbeat row at once, as for
     * {@link #renewForStatement}.
     *
     * @param what what the event may have changed, from {@link StatementEventDetector}
     * @return the new epoch; null (and nothing renewed) before the start-up check decided one
     */
    public String renewForUnreadableEvent(String what, Clock clock) {
        return renew(Continuity.Verdict.UNREADABLE_EVENT_IN_BINLOG, what, epochs -> "The binlog held " + what + ", which the"
                + " connector cannot read: the rows it changed are unknown. " + epochs,
                "If the server compressed it (MariaDB's log_bin_compress was ON when it was written; the connector"
                        + " refuses to start, and stops, while it is ON), keep log_bin_compress=OFF.", clock);
    }

    /**
     * Replaces the epoch because of {@code change} (see {@link UnreadableChange.Kind}); the caller writes the heartbeat
     * row at once, as for {@link #renewForStatement}.
     *
     * @return the new epoch; null (and nothing renewed) before the start-up check decided one
     */
    public String renewFor(UnreadableChange change, Clock clock) {
        return switch (change.kind()) {
            case STATEMENT -> renewForStatement(change.detail(), clock);
            // a query event stops the engine before it gets here (EpochRenewal); renewed all the same if one does
            case UNREADABLE_EVENT, UNREADABLE_QUERY_EVENT -> renewForUnreadableEvent(change.detail(), clock);
            case XA_COMMIT -> renewForXaCommit(clock);
            case SCHEMA_CHANGE -> renewForSchemaChange(change.detail(), clock);
            case INCIDENT -> {
                yield renewForIncident(change.detail(), clock);
            }
        };
    }

    /**
     * Replaces the epoch because the binlog held an incident event (see {@link Continuity.Verdict#SERVER_INCIDENT}).
     *
     * @return the new epoch; null (and nothing renewed) before the start-up check decided one
     */
    private String renewForIncident(String incident, Clock clock) {
        return renew(Continuity.Verdict.SERVER_INCIDENT, "", epochs -> "The binlog held an incident event (" + incident
                + "): the server could not log some changes, which no client will hear of. " + epochs,
                "Look in the database server's error log for why it could not write to the binlog (a full disk, a"
                        + " transaction larger than max_binlog_cache_size on a non-transactional table); replicas of"
                        + " that server stop at the same event.", clock);
    }

    /**
     * Replaces the epoch because a schema change named a captured table (see
     * {@link Continuity.Verdict#SCHEMA_CHANGE_OF_CAPTURED_TABLE}).
     *
     * @return the new epoch; null (and nothing renewed) before the start-up check decided one
     */
    private String renewForSchemaChange(String sql, Clock clock) {
        String form = abbreviate(sql);
        return renew(Continuity.Verdict.SCHEMA_CHANGE_OF_CAPTURED_TABLE, form, epochs -> "A schema change"
                + " named a captured table (" + form + "): it may have replaced or rewritten the table's rows"
                + " (a table swapped in by RENAME TABLE, a dropped table, a converted column) without row events. "
                + epochs,
                "Nothing is wrong: a schema change of a captured table drops the clients' caches of the captured tables"
                        + " once. An online schema change tool (gh-ost, pt-online-schema-change) does so at its"
                        + " cut-over.", clock);
    }

    /**
     * Replaces the epoch because a prepared XA transaction was committed (see
     * {@link Continuity.Verdict#XA_COMMIT_AFTER_PREPARE}).
     *
     * @return the new epoch; null (and nothing renewed) before the start-up check decided one
     */
    private String renewForXaCommit(Clock clock) {
        return renew(Continuity.Verdict.XA_COMMIT_AFTER_PREPARE, "", epochs -> "A prepared XA transaction was committed."
                + " Its rows reached the binlog, and were published, at XA PREPARE, while readers still saw the old rows;"
                + " a client may have cached those since, and the commit carries no rows to evict them by. " + epochs,
                "Nothing is wrong with the server: this is how XA transactions reach the binlog. Every XA COMMIT of a"
                        + " prepared transaction drops the clients' caches of the captured tables; if that happens often,"
                        + " write the captured tables in ordinary transactions, or commit XA transactions in one phase"
                        + " (XA COMMIT ... ONE PHASE), which the binlog holds with their rows.", clock);
    }

    /**
     * Replaces the epoch because a binlog or replication filter leaves captured tables out of the binlog while the
     * connector streams (the heartbeat writer then holds its rows back). The new epoch is a new root, not a renewal of
     * the running one, so a start while the heartbeat row carries it does not resume the stored epoch; the offsets
     * record the hold as well ({@link StoredOffsets#recordUnresumable(boolean)}, {@link Continuity.Verdict#FILTERED_BEFORE_START}).
     * Called again for a fresh epoch when a row with the hold's epoch may have committed without an answer.
     *
     * @param filter what the filter is and what to do about it
     * @param replicaSkipped whether a replica the connector reads did not apply the changes (rows stay held then)
     * @return the new epoch; null (and nothing renewed) before the start-up check decided one
     */
    public String renewForFilter(String filter, boolean replicaSkipped, Clock clock) {
        return renew(Continuity.Verdict.FILTERED_FROM_BINLOG, filter, true, epochs -> "A filter leaves changes of"
                + " captured tables out of the binlog the connector reads: " + filter + " Heartbeat rows are held back"
                + (replicaSkipped ? ", also once it is removed," : " until it is removed,") + " so no client proves its"
                + " cache fresh meanwhile. " + epochs, replicaSkipped
                ? "Remove the filter as said above, and keep services' reads off the replica: it did not apply the"
                        + " changes the filter kept out. Then re-sync its captured tables from the primary, delete the"
                        + " connector's stored offsets and start it again; until then every start is refused"
                        + " (docs/connector.md, \"Filters that leave changes out\")."
                : "Remove the filter as said above: the server's own tables are right, so the connector notices"
                        + " within a heartbeat interval and writes heartbeat rows again under a new epoch.", clock);
    }

    /**
     * Replaces the epoch of a filter's hold ({@link #renewForFilter}) once the filter is gone: the changes made while it
     * was in place never reached the binlog, so clients drop what they cached meanwhile. A new root too.
     *
     * @return the new epoch; null before the start-up check decided one
     */
    public String renewAfterFilter(Clock clock) {
        return renew(Continuity.Verdict.FILTER_REMOVED, "", true, epochs -> "The filter that left changes of captured"
                + " tables out of the binlog is gone, but the changes made while it was in place never reached it;"
                + " heartbeat rows are written again. " + epochs, "Nothing more: clients drop their entries of the"
                + " captured tables once they read the new epoch.", clock);
    }

    /** @param form what the ERROR line is throttled by, with the verdict: the same form within 10 s is counted only */
    private String renew(Continuity.Verdict verdict, String form,
            java.util.function.UnaryOperator<String> message, String action, Clock clock) {
        return renew(verdict, form, false, message, action, clock);
    }

    /**
     * @param newRoot a new epoch of its own rather than a renewal a next start may resume ({@link EpochLineage})
     */
    private synchronized String renew(Continuity.Verdict verdict, String form, boolean newRoot,
            java.util.function.UnaryOperator<String> message, String action, Clock clock) {
        Continuity c = current.get();
        if (c == null) {
            return null;
        }
        // a renewal: the next start resumes it (EpochLineage); a new root: it does not
        String epoch = newRoot ? EpochLineage.renewalOf(null) : EpochLineage.renewalOf(c.epoch());
        Continuity renewed = new Continuity(epoch, verdict, message.apply("A new epoch " + epoch + " replaced "
                + c.epoch() + ": every client drops its cached entries of the captured tables."), action, clock.instant());
        current.set(renewed);
        onNewEpoch.accept(renewed);
        long now = System.nanoTime();
        long[] last = logged.get(verdict + " " + form);
        if (last == null || now - last[0] >= LOG_INTERVAL_NANOS) {
            String more = last == null || last[1] == 0 ? ""
                    : " (" + last[1] + " more of this kind since the last such line, not logged)";
            LOG.error("Continuity gap: {}{} What to do: {}", renewed.message(), more, renewed.action());
            logged.put(verdict + " " + form, new long[] {now, 0});
        } else {
            last[1]++; // a writer that logs statements does so many times a second
        }
        return epoch;
    }

    /** The statement's kind and table only: its values may hold personal data. */
    static String abbreviate(String sql) {
        int start = UnreadableChangeClassifier.statementStart(sql); // past comments and a SET STATEMENT ... FOR
        java.util.regex.Matcher m = STATEMENT_KIND.matcher(sql).region(start, sql.length());
        if (m.lookingAt()) {
            return m.group(1).replaceAll("\\s+", " ").toUpperCase(java.util.Locale.ROOT) + " " + m.group(2) + " ...";
        }
        return sql.regionMatches(true, start, "LOAD DATA", 0, 9) ? "LOAD DATA ..." : "a statement";
    }

    /** A statement's kind and its first table, for {@link #abbreviate}. */
    private static final java.util.regex.Pattern STATEMENT_KIND = java.util.regex.Pattern.compile(
            "(INSERT\\s+(?:IGNORE\\s+)?INTO|REPLACE\\s+INTO|UPDATE|DELETE\\s+FROM"
                    + "|ALTER\\s+(?:(?:ONLINE|IGNORE)\\s+)*TABLE(?:\\s+IF\\s+EXISTS)?|RENAME\\s+TABLES?"
                    + "|DROP\\s+TABLES?(?:\\s+IF\\s+EXISTS)?|CREATE\\s+OR\\s+REPLACE\\s+TABLE"
                    + "|DROP\\s+(?:DATABASE|SCHEMA)(?:\\s+IF\\s+EXISTS)?)\\s+([`\\w.]+)",
            java.util.regex.Pattern.CASE_INSENSITIVE);

    /** Records that the engine refused to go on: its position is gone, or its lease was lost (message and remedy). */
    public void engineFailed(String explanation) {
        engineFailure.set(explanation);
    }

    /** Why the engine stopped on a lost position or lease, if it did. */
    public Optional<String> engineFailure() {
        return Optional.ofNullable(engineFailure.get());
    }
}
