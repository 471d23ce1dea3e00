package dev.cdccache.infra.process;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run as a child JVM by {@code FreePortsIT}: tries to reserve the port it is given, picks one of its own, prints both
 * results, then holds its reservations until the file it is given exists (at most 60 s).
 */
final class PortReserver {

    private PortReserver() {
    }

    public static void main(String[] args) throws InterruptedException {
        boolean reserved = FreePorts.reserve(Integer.parseInt(args[0]));
        System.out.println("RESERVED=" + reserved + " PICKED=" + FreePorts.next());
        System.out.flush();
        Path exitWhen = Path.of(args[1]);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!Files.exists(exitWhen) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
    }
}
