package dev.cdccache.infra.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks loopback ports for child processes (MariaDB, Kafka, Connect workers, connectors) that stay theirs until
 * they bind them, also when several test JVMs and builds run on one machine.
 *
 * <p>A port the kernel hands out for port 0 comes from its ephemeral range, the range every outgoing connection
 * takes its local port from: between the pick and a child's bind, which can be 40 s for a Connect worker, any
 * connection of any process may take it, and the child then fails with "Address already in use". Ports are
 * therefore picked outside that range ({@code /proc/sys/net/ipv4/ip_local_port_range}; above it, else below it),
 * and each one picked is reserved for this JVM's lifetime by a lock on a file under
 * {@code ${java.io.tmpdir}/cdc-cache-ports-${user.name}}, which the other JVMs of that user skip. The lock goes with
 * the JVM, so a killed run leaves nothing reserved. (The gatling smoke pass takes its ports below the ephemeral
 * range, so the two never meet.)
 */
public final class FreePorts {

    private static final Path RESERVATIONS = Path.of(System.getProperty("java.io.tmpdir"),
            "cdc-cache-ports-" + System.getProperty("user.name", "unknown"));
    private static final int ATTEMPTS = 2_000;
    /**
     * The reservations of this JVM, by port. A lock lives as long as its channel is open; and since the locks are
     * the operating system's per-process record locks, a second channel on the same file must never be opened and
     * closed here: closing it would drop the lock the first one holds.
     */
    private static final Map<Integer, FileChannel> HELD = new HashMap<>();
    private static final int[] RANGE = pickRange(ephemeralRange());
    private static boolean reservationsDirectoryMade;

    private FreePorts() {
    }

    /**
     * Returns a port that was free on 127.0.0.1 when this method returned, outside the kernel's ephemeral range and
     * reserved for this JVM: no other caller of this method on this machine gets it while this JVM runs. Falls back
     * to a port of the kernel's choice when the machine leaves no room outside that range.
     */
    public static int next() {
        if (RANGE != null) {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                int port = ThreadLocalRandom.current().nextInt(RANGE[0], RANGE[1] + 1);
                if (reserve(port) && isFree(port)) {
                    return port;
                }
            }
        }
        return kernelPick();
    }

    /** True if nothing listens on 127.0.0.1:port. */
    public static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Reserves a port for this JVM's lifetime; false if this or another JVM reserved it already (or the reservation
     * cannot be recorded).
     */
    static synchronized boolean reserve(int port) {
        if (HELD.containsKey(port)) {
            return false;
        }
        FileChannel channel = null;
        try {
            if (!reservationsDirectoryMade) {
                Files.createDirectories(RESERVATIONS);
                reservationsDirectoryMade = true;
            }
            channel = FileChannel.open(RESERVATIONS.resolve(port + ".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock != null) {
                HELD.put(port, channel);
                return true;
            }
        } catch (IOException | OverlappingFileLockException e) {
            // no room for the file, or locked through another channel of this JVM: not this port
        }
        closeQuietly(channel);
        return false;
    }

    /** The ports picked from, inclusive: outside the ephemeral range {@code [low, high]}; null if too few. */
    static int[] pickRange(int[] ephemeral) {
        if (ephemeral == null) {
            return null;
        }
        int low = ephemeral[0];
        int high = ephemeral[1];
        if (65_535 - high >= 1_000) {
            return new int[] {high + 1, 65_535};
        }
        // below the range, keeping clear of the ports under 10000 that servers are commonly configured on
        if (low - 10_000 >= 1_000) {
            return new int[] {10_000, low - 1};
        }
        return null;
    }

    /** The kernel's ephemeral range {@code [low, high]}, Linux's default where it cannot be read. */
    static int[] ephemeralRange() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
            String[] parts = lines.get(0).trim().split("\\s+");
            return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (IOException | RuntimeException e) {
            return new int[] {32_768, 60_999}; // Linux's default
        }
    }

    private static int kernelPick() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing held
            }
        }
    }
}
