package dev.cdccache.infra.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Picks loopback ports that are free right now, so concurrent runs on one machine do not collide. */
public final class FreePorts {

    private FreePorts() {
    }

    /**
     * Returns a port that was free on 127.0.0.1 when this method returned. Another process may still
     * take it before the caller binds it; callers that bind a child process retry on failure.
     */
    public static int next() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
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
}
