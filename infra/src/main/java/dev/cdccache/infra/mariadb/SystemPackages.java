package dev.cdccache.infra.mariadb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Finds MariaDB's programs from the system packages, installing them with apt-get when that is allowed
 * ({@code -Dcdc.infra.install-packages=true} or {@code CDC_INFRA_INSTALL_PACKAGES=true}, and running as root).
 */
final class SystemPackages {

    private static final List<String> DIRS = List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin");

    private SystemPackages() {
    }

    static String requireMariaDb() {
        return find("mariadbd").orElseGet(() -> installThenFind("mariadbd"));
    }

    static String requireMariaDbInstallDb() {
        return find("mariadb-install-db").orElseGet(() -> installThenFind("mariadb-install-db"));
    }

    /** The command-line client ({@code mariadb}), which the server package brings along. */
    static String requireMariaDbClient() {
        return find("mariadb").orElseGet(() -> installThenFind("mariadb"));
    }

    private static synchronized String installThenFind(String program) {
        Optional<String> found = find(program);
        if (found.isPresent()) {
            return found.get();
        }
        boolean allowed = Boolean.getBoolean("cdc.infra.install-packages")
                || "true".equalsIgnoreCase(System.getenv("CDC_INFRA_INSTALL_PACKAGES"));
        if (!allowed || !"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException(program + " was not found. Install MariaDB server from the system "
                    + "packages (Debian/Ubuntu: sudo apt-get install -y mariadb-server), or run as root with "
                    + "CDC_INFRA_INSTALL_PACKAGES=true to let the launcher install it.");
        }
        run(List.of("apt-get", "update", "-q"));
        run(List.of("apt-get", "install", "-y", "-q", "mariadb-server"));
        return find(program).orElseThrow(() -> new IllegalStateException(
                "apt-get install mariadb-server did not provide " + program));
    }

    private static void run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).inheritIO().start();
            if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", command) + " could not run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static Optional<String> find(String program) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : (path + ":" + String.join(":", DIRS)).split(":")) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate.toString());
            }
        }
        return Optional.empty();
    }
}
