package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidationClient;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the client with the application context (waiting up to {@code await-ready} for it to be positioned)
 * and stops it on shutdown. Its phase is low so it starts before and stops after the web server: requests
 * in flight during a graceful shutdown still get invalidations.
 */
public class InvalidationClientLifecycle implements SmartLifecycle {

    /** Before the web server (which starts at DEFAULT_PHASE - 2048) and stopped after it. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 8192;

    private static final Logger LOG = LoggerFactory.getLogger(InvalidationClientLifecycle.class);

    private final InvalidationClient client;
    private final Duration awaitReady;
    private volatile boolean running;

    public InvalidationClientLifecycle(InvalidationClient client, Duration awaitReady) {
        this.client = client;
        this.awaitReady = awaitReady;
    }

    @Override
    public void start() {
        client.start();
        running = true;
        if (awaitReady != null && !awaitReady.isZero() && !client.awaitReady(awaitReady)) {
            LOG.warn("Invalidation client {} not ready after {} (Kafka reachable at {}?); continuing: caches pass "
                    + "loads through until it is", client.instanceId(), awaitReady, client.config().bootstrapServers());
        }
    }

    @Override
    public void stop() {
        client.close();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
