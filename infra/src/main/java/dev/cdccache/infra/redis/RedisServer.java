package dev.cdccache.infra.redis;

import dev.cdccache.infra.DataDirectories;
import dev.cdccache.infra.process.FreePorts;
import dev.cdccache.infra.process.ManagedProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A private Redis server from the system packages ({@code redis-server}) on its own port, with nothing
 * kept on disk: the remote cache that the services' {@code redis} cache mode is compared against.
 */
public final class RedisServer implements AutoCloseable {

    private final Path baseDir;
    private final int port;
    private ManagedProcess process;

    public RedisServer(Path baseDir, int port) {
        this.baseDir = baseDir.toAbsolutePath();
        this.port = port != 0 ? port : FreePorts.next();
    }

    public synchronized RedisServer start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        String binary = findRedis();
        try {
            Files.createDirectories(baseDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        process = ManagedProcess.start("redis:" + port,
                List.of(binary, "--port", String.valueOf(port), "--bind", "127.0.0.1", "--save", "",
                        "--appendonly", "no", "--dir", baseDir.toString(), "--maxmemory", "512mb",
                        "--maxmemory-policy", "allkeys-lru"),
                Map.of(), baseDir, baseDir.resolve("redis.log"));
        process.awaitCondition("PONG on port " + port, Duration.ofSeconds(30), this::answers);
        return this;
    }

    public synchronized void stop() {
        if (process != null) {
            process.stop(Duration.ofSeconds(10));
        }
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    @Override
    public synchronized void close() {
        stop();
        DataDirectories.delete(baseDir);
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    private boolean answers() {
        try (Socket socket = new Socket(host(), port)) {
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[16];
            int read = in.read(buffer);
            return read > 0 && new String(buffer, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private static String findRedis() {
        for (String candidate : List.of("/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        throw new IllegalStateException("redis-server was not found. Install it from the system packages "
                + "(Debian/Ubuntu: sudo apt-get install -y redis-server).");
    }

    @Override
    public String toString() {
        return "Redis " + host() + ":" + port;
    }
}
