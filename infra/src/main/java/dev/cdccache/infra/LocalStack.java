package dev.cdccache.infra;

import dev.cdccache.infra.kafka.KafkaBroker;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.infra.redis.RedisServer;
import java.nio.file.Path;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real components the platform runs on, started as local processes: a MariaDB server with the
 * binlog on, a Kafka broker in KRaft mode, and (on first use) a Redis server.
 *
 * <p>Tests share one stack per JVM through {@link #shared()}; it is stopped and its data deleted by a
 * shutdown hook, and every child process also has a watchdog that kills it if the JVM dies without
 * running hooks. The local run starts a stack with fixed ports and a kept data directory through
 * {@link #start(Path, int, int, int)}.
 */
public final class LocalStack implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalStack.class);
    private static volatile LocalStack shared;

    private final Path baseDir;
    private final boolean deleteOnClose;
    private final MariaDbServer mariaDb;
    private final KafkaBroker kafka;
    private final int redisPort;
    private RedisServer redis;

    private LocalStack(Path baseDir, boolean deleteOnClose, int mariaDbPort, int kafkaPort, int redisPort) {
        this.baseDir = baseDir.toAbsolutePath();
        this.deleteOnClose = deleteOnClose;
        this.mariaDb = MariaDbServer.builder(this.baseDir.resolve("mariadb")).port(mariaDbPort).build();
        this.kafka = KafkaBroker.builder(this.baseDir.resolve("kafka")).port(kafkaPort).build();
        this.redisPort = redisPort;
    }

    /**
     * The stack shared by every test of this JVM, started on first call on free ports under
     * {@code target/infra-<pid>} (or {@code -Dcdc.infra.dir}).
     */
    public static LocalStack shared() {
        LocalStack stack = shared;
        if (stack == null) {
            synchronized (LocalStack.class) {
                stack = shared;
                if (stack == null) {
                    Path dir = Path.of(System.getProperty("cdc.infra.dir", "target"))
                            .resolve("infra-" + ProcessHandle.current().pid());
                    stack = new LocalStack(dir, true, 0, 0, 0);
                    LocalStack started = stack;
                    Runtime.getRuntime().addShutdownHook(new Thread(started::close, "local-stack-shutdown"));
                    started.startAll();
                    shared = stack;
                }
            }
        }
        return stack;
    }

    /**
     * Starts a stack on fixed ports (0 = free port) whose data is kept in {@code baseDir} across runs.
     */
    public static LocalStack start(Path baseDir, int mariaDbPort, int kafkaPort, int redisPort) {
        LocalStack stack = new LocalStack(Objects.requireNonNull(baseDir), false, mariaDbPort, kafkaPort, redisPort);
        stack.startAll();
        return stack;
    }

    private void startAll() {
        long started = System.nanoTime();
        try {
            mariaDb.start();
            kafka.start();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        log.info("local stack up in {} ms: {}, {} (data in {})", (System.nanoTime() - started) / 1_000_000,
                mariaDb, kafka, baseDir);
    }

    public MariaDbServer mariaDb() {
        return mariaDb;
    }

    public KafkaBroker kafka() {
        return kafka;
    }

    /** The Redis server, started on first call. */
    public synchronized RedisServer redis() {
        if (redis == null) {
            redis = new RedisServer(baseDir.resolve("redis"), redisPort);
        }
        return redis.start();
    }

    public Path baseDir() {
        return baseDir;
    }

    /** Stops everything; deletes the data when this is a test stack. */
    @Override
    public synchronized void close() {
        RuntimeException failure = null;
        for (AutoCloseable part : new AutoCloseable[] {redis, kafka, mariaDb}) {
            if (part == null) {
                continue;
            }
            try {
                if (deleteOnClose) {
                    part.close();
                } else if (part instanceof RedisServer r) {
                    r.stop();
                } else if (part instanceof KafkaBroker k) {
                    k.stop();
                } else if (part instanceof MariaDbServer m) {
                    m.stop();
                }
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("stopping the local stack failed", e);
                }
            }
        }
        if (deleteOnClose) {
            DataDirectories.delete(baseDir);
        }
        if (failure != null) {
            throw failure;
        }
    }
}
