package dev.cdccache.verifier.workload;

import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.verifier.RunClock;
import dev.cdccache.verifier.history.CommittedHistory;
import dev.cdccache.verifier.history.Tokens;
import dev.cdccache.verifier.schema.Item;
import dev.cdccache.verifier.schema.VerifierSchema;
import dev.cdccache.verifier.workload.TableModel.RowChange;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only writer of {@code verifier_db.item}: plain JDBC as the application user, at a set rate, every kind
 * of change a cache must survive. Every transaction is recorded in the {@link CommittedHistory} with its
 * commit times: the states it creates are appended as pending just before the statements run and completed
 * with the time {@code commit()} returned.
 *
 * <p>A commit that throws has an unknown outcome; the writer reconnects, reads back whether it committed,
 * and completes or discards its history entries accordingly. Faults that restart the database
 * {@linkplain #pause() pause} the writer, so such failures stay exceptional.
 */
public final class Writer implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(Writer.class);
    private static final String ITEM = VerifierSchema.ITEM_TABLE;

    private final MariaDbServer db;
    private final CommittedHistory history;
    private final TableModel model;
    private final MissedIds missedIds;
    private final RunClock clock;
    private final SplittableRandom random;
    private final WriteStatistics statistics = new WriteStatistics();
    private final ReentrantLock pauseLock = new ReentrantLock(true);
    private final double writesPerSecond;
    private final int initialRows;
    private final int hotKeys;
    private final int bulkRows;
    private final long bulkEveryNanos;
    private final long truncateEveryNanos;
    private final long truncateFirstAtNanos;
    private final long schemaChangeEveryNanos;
    private volatile boolean running = true;
    private long nextVersion = 1;
    private int schemaChanges;
    private Connection connection;

    public Writer(MariaDbServer db, CommittedHistory history, TableModel model, MissedIds missedIds, RunClock clock,
            long seed, double writesPerSecond, int initialRows, int hotKeys, int bulkRows, Duration bulkEvery,
            Duration truncateFirstAt, Duration truncateEvery, Duration schemaChangeEvery) {
        this.db = db;
        this.history = history;
        this.model = model;
        this.missedIds = missedIds;
        this.clock = clock;
        this.random = new SplittableRandom(seed);
        this.writesPerSecond = writesPerSecond;
        this.initialRows = initialRows;
        this.hotKeys = hotKeys;
        this.bulkRows = bulkRows;
        this.bulkEveryNanos = bulkEvery.toNanos();
        this.truncateFirstAtNanos = truncateFirstAt.toNanos();
        this.truncateEveryNanos = truncateEvery.toNanos();
        this.schemaChangeEveryNanos = schemaChangeEvery.toNanos();
    }

    public WriteStatistics statistics() {
        return statistics;
    }

    /** Fills the empty table with the initial rows (before the clients start). */
    public void populate() throws SQLException {
        connect();
        fill(WriteKind.INITIAL_LOAD);
    }

    @Override
    public void run() {
        long interval = (long) (1e9 / writesPerSecond);
        long started = clock.now();
        long nextAt = started;
        long nextBulk = started + bulkEveryNanos;
        long nextTruncate = started + truncateFirstAtNanos;
        long nextSchemaChange = started + schemaChangeEveryNanos / 2;
        while (running) {
            long now = clock.now();
            if (now < nextAt) {
                LockSupport.parkNanos(nextAt - now);
                continue;
            }
            // After a pause, do not make up for lost time with a burst.
            nextAt = Math.max(nextAt + interval, now - 1_000_000_000L);
            pauseLock.lock();
            try {
                if (!running) {
                    break;
                }
                if (now >= nextTruncate) {
                    nextTruncate = now + truncateEveryNanos;
                    truncateAndRefill();
                } else if (now >= nextBulk) {
                    nextBulk = now + bulkEveryNanos;
                    bulkUpdate();
                } else if (now >= nextSchemaChange) {
                    nextSchemaChange = now + schemaChangeEveryNanos;
                    schemaChange();
                } else {
                    randomWrite();
                }
            } catch (SQLException e) {
                LOG.warn("Write failed outside a transaction ({}); reconnecting", e.toString());
                reconnect();
            } catch (RuntimeException e) {
                LOG.error("Writer failed", e);
                throw e;
            } finally {
                pauseLock.unlock();
            }
        }
        close();
    }

    /** Stops after the current transaction; {@link #run()} returns. */
    public void stop() {
        running = false;
    }

    /** Waits until the current transaction is done and holds the writer until {@link #resume()} (same thread). */
    public void pause() {
        pauseLock.lock();
    }

    public void resume() {
        pauseLock.unlock();
    }

    /**
     * Updates one present row outside the hot keys on the caller's thread, between two of the writer's transactions,
     * recorded like any other write. The sampler's negative control changes a row this way and then puts its old
     * value back into a cache.
     *
     * @return the change, or {@code null} if no row was found or the update did not commit
     */
    public RowChange updateColdRow() throws SQLException {
        pauseLock.lock();
        try {
            long id = model.randomPresent(random, hotKeys + 1, model.idSpace());
            if (id < 0) {
                return null;
            }
            RowChange change = new RowChange(id, model.get(id), updated(model.get(id)));
            transaction(WriteKind.UPDATE, List.of(change), false);
            return change.after().equals(model.get(id)) ? change : null;
        } finally {
            pauseLock.unlock();
        }
    }

    private void randomWrite() throws SQLException {
        int dice = random.nextInt(100);
        if (dice < 30) {
            single(WriteKind.UPDATE, model.randomPresent(random, 1, model.idSpace()), this::updated);
        } else if (dice < 38) {
            single(WriteKind.HOT_UPDATE, model.randomPresent(random, 1, hotKeys), this::updated);
        } else if (dice < 46) {
            single(WriteKind.CODE_CHANGE, model.randomPresent(random, 1, model.idSpace()), this::recoded);
        } else if (dice < 52) {
            single(WriteKind.GROUP_CHANGE, model.randomPresent(random, 1, model.idSpace()), this::regrouped);
        } else if (dice < 62) {
            single(WriteKind.DELETE, model.randomPresent(random, 1, model.idSpace()), before -> null);
        } else if (dice < 74) {
            long id = missedIds.poll();
            while (id > 0 && model.get(id) != null) {
                id = missedIds.poll();
            }
            if (id > 0) {
                insert(WriteKind.INSERT_LOOKED_UP, id);
            } else {
                insert(WriteKind.INSERT, model.randomAbsent(random));
            }
        } else if (dice < 78) {
            insert(WriteKind.INSERT, model.randomAbsent(random));
        } else if (dice < 92) {
            transaction(WriteKind.MULTI_ROW, randomChanges(2 + random.nextInt(6)), false);
        } else {
            transaction(WriteKind.ROLLED_BACK, randomChanges(1 + random.nextInt(4)), true);
        }
    }

    private void single(WriteKind kind, long id, UnaryOperator<Item> change) throws SQLException {
        if (id < 0) {
            insert(WriteKind.INSERT, model.randomAbsent(random));
            return;
        }
        Item before = model.get(id);
        transaction(kind, List.of(new RowChange(id, before, change.apply(before))), false);
    }

    private void insert(WriteKind kind, long id) throws SQLException {
        if (id < 0) {
            return;
        }
        transaction(kind, List.of(new RowChange(id, null, newRow(id))), false);
    }

    /** Changes of distinct random rows: updates, deletes, inserts, code and group changes. */
    private List<RowChange> randomChanges(int count) {
        Map<Long, RowChange> changes = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            int dice = random.nextInt(10);
            long id = dice < 2 ? model.randomAbsent(random)
                    : model.randomPresent(random, 1, dice < 5 ? hotKeys : model.idSpace());
            if (id < 0 || changes.containsKey(id)) {
                continue;
            }
            Item before = model.get(id);
            Item after;
            if (before == null) {
                after = newRow(id);
            } else if (dice < 7) {
                after = updated(before);
            } else if (dice < 8) {
                after = recoded(before);
            } else if (dice < 9) {
                after = regrouped(before);
            } else {
                after = null;
            }
            changes.put(id, new RowChange(id, before, after));
        }
        return new ArrayList<>(changes.values());
    }

    private Item updated(Item before) {
        long v = nextVersion++;
        return new Item(before.id(), before.code(), before.grp(), v, Item.payloadOf(v));
    }

    private Item recoded(Item before) {
        long v = nextVersion++;
        return new Item(before.id(), "c" + before.id() + "-" + v, before.grp(), v, Item.payloadOf(v));
    }

    private Item regrouped(Item before) {
        long v = nextVersion++;
        long grp = (before.grp() + 1 + random.nextInt(model.groups() - 1)) % model.groups();
        return new Item(before.id(), before.code(), grp, v, Item.payloadOf(v));
    }

    private Item newRow(long id) {
        long v = nextVersion++;
        return new Item(id, "c" + id + "-" + v, random.nextInt(model.groups()), v, Item.payloadOf(v));
    }

    /** Runs one transaction of row changes; a rolled-back one is executed and rolled back, never recorded. */
    private void transaction(WriteKind kind, List<RowChange> changes, boolean rollBack) throws SQLException {
        if (changes.isEmpty()) {
            return;
        }
        if (rollBack) {
            try {
                execute(changes);
            } finally {
                connection.rollback();
            }
            statistics.committed(kind, changes.size());
            return;
        }
        commit(kind, changes, false, () -> execute(changes));
    }

    private void bulkUpdate() throws SQLException {
        long from = 1 + random.nextInt(Math.max(1, model.idSpace() - bulkRows));
        long to = from + bulkRows - 1;
        long v = nextVersion++;
        List<RowChange> changes = new ArrayList<>();
        for (Item before : model.presentRows(from, to)) {
            changes.add(new RowChange(before.id(), before,
                    new Item(before.id(), before.code(), before.grp(), v, Item.payloadOf(v))));
        }
        if (changes.isEmpty()) {
            return;
        }
        commit(WriteKind.BULK_UPDATE, changes, false, () -> {
            try (PreparedStatement ps = connection.prepareStatement("UPDATE " + ITEM
                    + " SET version = ?, payload = ?, updated_at = UTC_TIMESTAMP(6) WHERE id BETWEEN ? AND ?")) {
                ps.setLong(1, v);
                ps.setString(2, Item.payloadOf(v));
                ps.setLong(3, from);
                ps.setLong(4, to);
                ps.executeUpdate();
            }
        });
    }

    private void truncateAndRefill() throws SQLException {
        List<RowChange> changes = new ArrayList<>();
        for (Item before : model.presentRows(1, model.idSpace())) {
            changes.add(new RowChange(before.id(), before, null));
        }
        if (!changes.isEmpty()) {
            commit(WriteKind.TRUNCATE, changes, true, () -> {
                try (Statement s = connection.createStatement()) {
                    s.execute("TRUNCATE TABLE " + ITEM);
                }
            });
        }
        fill(WriteKind.REFILL);
    }

    private void fill(WriteKind kind) throws SQLException {
        List<RowChange> changes = new ArrayList<>();
        double share = (double) initialRows / model.idSpace();
        for (long id = 1; id <= model.idSpace(); id++) {
            if (model.get(id) == null && random.nextDouble() < share) {
                changes.add(new RowChange(id, null, newRow(id)));
            }
        }
        commit(kind, changes, false, () -> execute(changes));
    }

    private void schemaChange() throws SQLException {
        String column = "extra_" + (schemaChanges / 2);
        String ddl = schemaChanges % 2 == 0 ? "ALTER TABLE " + ITEM + " ADD COLUMN " + column + " INT NULL"
                : "ALTER TABLE " + ITEM + " DROP COLUMN " + column;
        try (Statement s = connection.createStatement()) {
            s.execute(ddl);
        }
        connection.commit();
        schemaChanges++;
        statistics.committed(WriteKind.SCHEMA_CHANGE, 0);
        LOG.info("Schema change: {}", ddl);
    }

    /** The statements of row changes, without commit; inserts of many rows go in multi-row statements. */
    private void execute(List<RowChange> changes) throws SQLException {
        List<Item> inserts = new ArrayList<>();
        for (RowChange change : changes) {
            if (change.before() == null) {
                inserts.add(change.after());
            } else if (change.after() == null) {
                try (PreparedStatement ps = connection.prepareStatement("DELETE FROM " + ITEM + " WHERE id = ?")) {
                    ps.setLong(1, change.id());
                    ps.executeUpdate();
                }
            } else {
                Item a = change.after();
                try (PreparedStatement ps = connection.prepareStatement("UPDATE " + ITEM
                        + " SET code = ?, grp = ?, version = ?, payload = ?, updated_at = UTC_TIMESTAMP(6) WHERE id = ?")) {
                    ps.setString(1, a.code());
                    ps.setLong(2, a.grp());
                    ps.setLong(3, a.version());
                    ps.setString(4, a.payload());
                    ps.setLong(5, a.id());
                    ps.executeUpdate();
                }
            }
        }
        for (int from = 0; from < inserts.size(); from += 500) {
            List<Item> chunk = inserts.subList(from, Math.min(inserts.size(), from + 500));
            StringBuilder sql = new StringBuilder("INSERT INTO " + ITEM + " (id, code, grp, version, payload, updated_at) VALUES ");
            for (int i = 0; i < chunk.size(); i++) {
                sql.append(i == 0 ? "" : ",").append("(?,?,?,?,?,UTC_TIMESTAMP(6))");
            }
            try (PreparedStatement ps = connection.prepareStatement(sql.toString())) {
                int p = 1;
                for (Item item : chunk) {
                    ps.setLong(p++, item.id());
                    ps.setString(p++, item.code());
                    ps.setLong(p++, item.grp());
                    ps.setLong(p++, item.version());
                    ps.setString(p++, item.payload());
                }
                ps.executeUpdate();
            }
        }
    }

    @FunctionalInterface
    private interface Statements {
        void run() throws SQLException;
    }

    /**
     * Applies the changes to the model, records their states as pending, runs the statements and commits,
     * then completes the states with the commit's end; on failure finds out whether it committed.
     */
    private void commit(WriteKind kind, List<RowChange> changes, boolean truncate, Statements statements)
            throws SQLException {
        if (changes.isEmpty()) {
            return;
        }
        model.apply(changes);
        long start = clock.now();
        CommittedHistory.PendingCommit pending = new CommittedHistory.PendingCommit(start);
        for (RowChange change : changes) {
            pending.append(history.ofId(change.id()), Tokens.of(change.after()));
        }
        for (String code : TableModel.affectedCodes(changes)) {
            pending.append(history.ofCode(code), model.codeToken(code));
        }
        for (long grp : TableModel.affectedGroups(changes)) {
            pending.append(history.ofGroup(grp), model.groupToken(grp));
        }
        pending.append(history.ofStats(), model.statsToken());
        boolean committed;
        String gtid = null;
        try {
            statements.run();
            connection.commit();
            committed = true;
            if (!truncate && changes.size() > 1) { // bulk updates, refills: a connector may coalesce them
                gtid = lastGtid();
            }
        } catch (SQLException e) {
            statistics.failed();
            LOG.warn("{} of {} rows failed ({}); finding out whether it committed", kind, changes.size(), e.toString());
            safeRollback();
            reconnect();
            committed = committedAfterFailure(changes, truncate);
            if (committed) {
                statistics.ambiguousButCommitted();
            }
        }
        if (!committed) {
            pending.discard();
            model.undo(changes);
            return;
        }
        long end = clock.now();
        pending.complete(end);
        if (gtid != null) {
            history.expectCoalescible(start, gtid, changes.size());
        }
        if (truncate) {
            history.expectTruncation(start, end);
        } else {
            for (RowChange change : changes) {
                history.expectEvent(change.id(),
                        change.after() != null ? change.after().version() : -change.before().version(), start, end);
            }
        }
        statistics.committed(kind, changes.size());
    }

    /**
     * The GTID of this session's last transaction: one of several rows (a bulk update, a refill) may be coalesced by
     * the connector, and its coalesced eviction names it. {@code null} if it cannot be read (then a coalesced bulk
     * shows as missing events, with examples, rather than being passed unchecked).
     */
    private String lastGtid() {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT @@last_gtid")) {
            String gtid = rs.next() ? rs.getString(1) : null;
            if (gtid == null || gtid.isEmpty() || gtid.equals(previousGtid)) {
                // unchanged: the transaction wrote nothing to the binlog, so no eviction can stand for it
                return null;
            }
            previousGtid = gtid;
            return gtid;
        } catch (SQLException e) {
            LOG.warn("Could not read the GTID of a committed bulk update ({}); if the connector coalesces it, its rows"
                    + " will show as missing events", e.toString());
            return null;
        }
    }

    /** The GTID {@link #lastGtid} read last: a session's {@code @@last_gtid} stays as it was after an empty commit. */
    private String previousGtid;

    private boolean committedAfterFailure(List<RowChange> changes, boolean truncate) throws SQLException {
        if (truncate) {
            try (Statement s = connection.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + ITEM)) {
                rs.next();
                return rs.getLong(1) == 0;
            }
        }
        RowChange first = changes.get(0);
        Item now = VerifierSchema.byId(connection, first.id());
        return first.after() == null ? now == null : now != null && now.version() == first.after().version();
    }

    private void connect() throws SQLException {
        connection = DriverManager.getConnection(db.jdbcUrl(VerifierSchema.DATABASE), db.appUser(), db.appPassword());
        connection.setAutoCommit(false);
    }

    private void reconnect() {
        close();
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            try {
                connect();
                return;
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("writer cannot reconnect to MariaDB", e);
                }
                LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
            }
        }
    }

    private void safeRollback() {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // the connection is probably gone; reconnect() follows
        }
    }

    private void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // closing a broken connection
            }
        }
    }
}
