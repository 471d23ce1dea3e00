package dev.cdccache.verifier.workload;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.cache.CacheTransaction;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.client.staleness.StalenessStatus;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.verifier.RunClock;
import dev.cdccache.verifier.history.CommittedHistory;
import dev.cdccache.verifier.history.KeyHistory;
import dev.cdccache.verifier.history.Tokens;
import dev.cdccache.verifier.instance.Caches;
import dev.cdccache.verifier.instance.ClientInstance;
import dev.cdccache.verifier.schema.Item;
import dev.cdccache.verifier.schema.ItemStats;
import dev.cdccache.verifier.schema.VerifierSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reader thread of one client instance: reads hot and cold keys, single and bulk, through every cache,
 * with loaders that query MariaDB as the application user, and classifies every value it is served against
 * the {@link CommittedHistory}. A sample of single reads also checks the staleness guard directly: an entry
 * the cache would serve must have been loaded, or confirmed by the client's watermark, within max-staleness.
 */
public final class Reader implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(Reader.class);

    private final ClientInstance instance;
    private final ReadStatistics statistics;
    private final CommittedHistory history;
    private final TableModel model;
    private final MissedIds missedIds;
    private final MariaDbServer db;
    private final RunClock clock;
    private final SplittableRandom random;
    private final double readsPerSecond;
    private final int hotKeys;
    private final long maxStalenessMillis;
    private final LongFunction<String> time;
    private final int transactionalPercent;
    private final boolean transactionProtection;
    private final OffThreadConnections offThread;
    /** The thread running this reader: a loader call on any other is the client's sampler re-reading a hit. */
    private volatile Thread thread;
    /** Versions a reader writes and rolls back: far above what the writer ever commits, so never committed. */
    private long uncommittedVersion;
    private volatile boolean running = true;
    private Connection connection;
    private int unexpectedErrorsLogged;

    public Reader(ClientInstance instance, ReadStatistics statistics, CommittedHistory history, TableModel model,
            MissedIds missedIds, MariaDbServer db, RunClock clock, long seed, double readsPerSecond, int hotKeys,
            long maxStalenessMillis, int transactionalPercent, boolean transactionProtection,
            OffThreadConnections offThread) {
        this.offThread = offThread;
        this.transactionalPercent = transactionalPercent;
        this.transactionProtection = transactionProtection;
        this.instance = instance;
        this.statistics = statistics;
        this.history = history;
        this.model = model;
        this.missedIds = missedIds;
        this.db = db;
        this.clock = clock;
        this.random = new SplittableRandom(seed);
        this.readsPerSecond = readsPerSecond;
        this.hotKeys = hotKeys;
        this.maxStalenessMillis = maxStalenessMillis;
        this.time = clock::format;
    }

    public void stop() {
        running = false;
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        long interval = (long) (1e9 / readsPerSecond);
        long nextAt = clock.now();
        while (running) {
            long now = clock.now();
            if (now < nextAt) {
                LockSupport.parkNanos(nextAt - now);
                continue;
            }
            nextAt = Math.max(nextAt + interval, now - 1_000_000_000L);
            Boolean done;
            try {
                done = instance.read(this::readOnce);
            } catch (RuntimeException e) {
                // A loader's query failed (the database is restarting); the cache rethrows it to the caller.
                statistics.recordError();
                if (!isLoadFailure(e) && unexpectedErrorsLogged++ < 5) {
                    LOG.warn("{}: a read failed unexpectedly", instance.name(), e);
                }
                closeConnection();
                LockSupport.parkNanos(20_000_000L);
                continue;
            }
            if (done == null) {
                statistics.recordSkipped();
                LockSupport.parkNanos(5_000_000L);
            }
        }
        closeConnection();
    }

    private Boolean readOnce(InvalidationClient client) {
        statistics.recordOperation();
        if (random.nextInt(100) < transactionalPercent) {
            readInTransaction(client);
            return Boolean.TRUE;
        }
        int dice = random.nextInt(100);
        if (dice < 30) {
            byId(client, hotId(), dice < 10);
        } else if (dice < 45) {
            byId(client, coldId(), dice < 35);
        } else if (dice < 55) {
            bulk(client, 25, 0.3);
        } else if (dice < 60) {
            bulk(client, 50, 1.0);
        } else if (dice < 75) {
            byCode(client);
        } else if (dice < 90) {
            byGroup(client);
        } else {
            stats(client);
        }
        return Boolean.TRUE;
    }

    /**
     * A service method inside a REPEATABLE READ transaction: its first read fixes the snapshot, the writer goes on
     * meanwhile, then it reads through the caches with loaders on the same connection. A third of them write a row
     * first, read it back through the cache and roll back. Values are judged from the transaction's begin: what it
     * was served must have been committed at some moment of the transaction, and nothing it read may reach the
     * caches unless that was safe (later reads of other readers judge that).
     */
    private void readInTransaction(InvalidationClient client) {
        try (CacheTransaction tx = transactionProtection
                ? CacheTransaction.begin().isolation(CacheTransaction.Isolation.REPEATABLE_READ) : null) {
            long begin = clock.now();
            Connection c = connection();
            c.setAutoCommit(false);
            boolean committed = false;
            try {
                VerifierSchema.stats(c); // the first read: the snapshot is taken now
                LockSupport.parkNanos(random.nextLong(20_000_000L, 120_000_000L)); // writes go on meanwhile
                if (random.nextInt(3) == 0) {
                    long id = coldId();
                    long version = uncommittedVersion();
                    try (java.sql.PreparedStatement update = c.prepareStatement(
                            "UPDATE " + VerifierSchema.ITEM_TABLE + " SET version = ?, payload = ? WHERE id = ?")) {
                        update.setLong(1, version);
                        update.setString(2, Item.payloadOf(version));
                        update.setLong(3, id);
                        update.executeUpdate();
                    }
                    client.<Long, Item>cache(Caches.BY_ID).get(id, key -> load(cc -> VerifierSchema.byId(cc, key)));
                    c.rollback(); // the value read back was never committed: it must not be served later
                    return;
                }
                byIdInTransaction(client, random.nextBoolean() ? hotId() : coldId(), begin);
                byIdInTransaction(client, coldId(), begin);
                c.commit();
                committed = true;
                if (tx != null) {
                    tx.commit();
                }
            } finally {
                if (!committed) {
                    c.rollback();
                }
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new LoadFailedException(e);
        }
    }

    private void byIdInTransaction(InvalidationClient client, long id, long transactionBegin) {
        InvalidatingCache<Long, Item> cache = client.cache(Caches.BY_ID);
        Item value = cache.get(id, key -> load(c -> VerifierSchema.byId(c, key)));
        long t1 = clock.now();
        classify(Caches.BY_ID, id, history.ofId(id), Tokens.of(value), value, transactionBegin, t1);
    }

    private long uncommittedVersion() {
        if (uncommittedVersion == 0) {
            uncommittedVersion = (1L << 60) + (random.nextLong(1L << 40) << 16);
        }
        return ++uncommittedVersion;
    }

    private long hotId() {
        return 1 + random.nextInt(hotKeys);
    }

    private long coldId() {
        return 1 + random.nextInt(history.idSpace());
    }

    private void byId(InvalidationClient client, long id, boolean checkEntryAge) {
        InvalidatingCache<Long, Item> cache = client.cache(Caches.BY_ID);
        if (checkEntryAge) {
            checkServedEntry(client, cache, id);
        }
        long t0 = clock.now();
        Item value = cache.get(id, key -> load(c -> VerifierSchema.byId(c, key)));
        long t1 = clock.now();
        classify(Caches.BY_ID, id, history.ofId(id), Tokens.of(value), value, t0, t1);
        if (value == null) {
            missedIds.offer(id);
        }
    }

    private void bulk(InvalidationClient client, int size, double hotShare) {
        InvalidatingCache<Long, Item> cache = client.cache(Caches.BY_ID);
        Set<Long> ids = new LinkedHashSet<>();
        while (ids.size() < size) {
            ids.add(random.nextDouble() < hotShare ? hotId() : coldId());
        }
        List<Long> keys = new ArrayList<>(ids);
        long t0 = clock.now();
        Map<Long, Item> values = cache.getAll(keys, missing -> load(c -> VerifierSchema.byIds(c, missing)));
        long t1 = clock.now();
        for (Long id : keys) {
            Item value = values.get(id);
            classify(Caches.BY_ID, id, history.ofId(id), Tokens.of(value), value, t0, t1);
            if (value == null) {
                missedIds.offer(id);
            }
        }
    }

    private void byCode(InvalidationClient client) {
        String code = random.nextInt(10) == 0 ? model.retiredCode(random)
                : model.currentCode(random.nextBoolean() ? hotId() : coldId());
        if (code == null) {
            return;
        }
        InvalidatingCache<String, Item> cache = client.cache(Caches.BY_CODE);
        long t0 = clock.now();
        Item value = cache.get(code, key -> load(c -> VerifierSchema.byCode(c, key)));
        long t1 = clock.now();
        classify(Caches.BY_CODE, code, history.ofCode(code), Tokens.of(value), value, t0, t1);
    }

    private void byGroup(InvalidationClient client) {
        long grp = random.nextInt(history.groups());
        InvalidatingCache<Long, List<Item>> cache = client.cache(Caches.BY_GROUP);
        long t0 = clock.now();
        List<Item> value = cache.get(grp, key -> load(c -> VerifierSchema.byGroup(c, key)));
        long t1 = clock.now();
        classify(Caches.BY_GROUP, grp, history.ofGroup(grp), Tokens.ofGroup(value),
                value.size() + " rows", t0, t1);
    }

    private void stats(InvalidationClient client) {
        InvalidatingCache<String, ItemStats> cache = client.cache(Caches.STATS);
        long t0 = clock.now();
        ItemStats value = cache.get(Caches.STATS_KEY, key -> load(VerifierSchema::stats));
        long t1 = clock.now();
        classify(Caches.STATS, Caches.STATS_KEY, history.ofStats(), Tokens.ofStats(value), value, t0, t1);
    }

    private void classify(String cache, Object key, KeyHistory keyHistory, long token, Object value, long t0, long t1) {
        long verdict = keyHistory.classify(token, t0, t1);
        if (verdict == KeyHistory.FRESH) {
            statistics.recordFresh(cache);
        } else if (verdict == KeyHistory.PHANTOM) {
            statistics.recordPhantom(cache, describe("PHANTOM (never committed)", cache, key, keyHistory, token, value, t0, t1, -1));
        } else {
            statistics.recordStale(cache, verdict, () -> describe("stale by " + RunClock.millis(verdict), cache, key, keyHistory,
                    token, value, t0, t1, verdict));
        }
    }

    private String describe(String what, String cache, Object key, KeyHistory keyHistory, long token, Object value,
            long t0, long t1, long age) {
        StalenessStatus status = instance.status();
        return what + ": " + instance.name() + " cache " + cache + " key " + key + " served " + value
                + " (token " + token + ") in a read from " + time.apply(t0) + " to " + time.apply(t1)
                + "; committed states (latest last): "
                + keyHistory.describeLast(6, t -> Long.toString(t), time)
                + "; client status now: " + (status == null ? "restarting" : "fresh=" + status.fresh()
                        + " watermark age " + status.watermarkAgeMillis() + " ms");
    }

    private void checkServedEntry(InvalidationClient client, InvalidatingCache<Long, Item> cache, long id) {
        // Conservative on both ends, so a reader thread descheduled around the lookup cannot fake a violation:
        // the entry was served no earlier than lookupStart, and the cache's status taken after the lookup has a
        // watermark at least as recent as the one the lookup saw (it only grows). The cache's own watermark, not the
        // client's: an entry stored without its load time (CachedValue.UNKNOWN_LOAD) is served on it alone.
        long lookupStart = System.currentTimeMillis();
        CachedValue<Item> entry = cache.lookup(id);
        if (entry == null) {
            return;
        }
        StalenessStatus status = client.cacheStatus(Caches.BY_ID);
        long confirmedAt = Math.max(entry.loadedAtMillis(), status.watermarkMillis());
        // Neither a load time nor a watermark: nothing confirmed the entry it served.
        long age = confirmedAt == Long.MIN_VALUE ? Long.MAX_VALUE : lookupStart - confirmedAt;
        statistics.recordEntryCheck(age, maxStalenessMillis, () -> instance.name() + " served entry itemById " + id
                + " = " + entry.value() + " loaded at epoch ms " + entry.loadedAtMillis() + " in a lookup started at "
                + lookupStart + " (" + time.apply(clock.now()) + "), watermark " + status.watermarkMillis()
                + ": confirmed at least " + age + " ms before it was served > max-staleness " + maxStalenessMillis
                + " ms (status after the lookup: " + status + ")");
    }

    private <T> T load(OffThreadConnections.Query<T> query) {
        try {
            if (Thread.currentThread() != thread) {
                instance.recordSamplerReread();
                return offThread.run(query);
            }
            return query.run(connection());
        } catch (SQLException e) {
            throw new LoadFailedException(e);
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            connection = DriverManager.getConnection(db.jdbcUrl(VerifierSchema.DATABASE), db.appUser(),
                    db.appPassword());
        }
        return connection;
    }

    private static boolean isLoadFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof LoadFailedException || t instanceof SQLException) {
                return true;
            }
        }
        return false;
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // a broken connection
            }
            connection = null;
        }
    }

    /** A loader's query failed (database restarting): the read served nothing. */
    static final class LoadFailedException extends RuntimeException {
        LoadFailedException(SQLException cause) {
            super(cause);
        }
    }
}
