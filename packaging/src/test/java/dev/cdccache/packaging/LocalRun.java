package dev.cdccache.packaging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The defaults of the one-command local run ({@code infra/bin/local-run} and {@code infra/bin/lib/platform.sh}),
 * read from the scripts themselves, so the compose file is compared with what the local run really does.
 */
final class LocalRun {

    private final String scripts;

    private LocalRun(String scripts) {
        this.scripts = scripts;
    }

    static LocalRun read() {
        try {
            return new LocalRun(Files.readString(Repository.root().resolve("infra/bin/local-run")) + "\n"
                    + Files.readString(Repository.root().resolve("infra/bin/lib/platform.sh")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The default of {@code NAME="${NAME:-default}"}. */
    String defaultOf(String variable) {
        Matcher m = Pattern.compile(variable + "=\"\\$\\{" + variable + ":-([^}]*)}\"").matcher(scripts);
        if (!m.find()) {
            throw new AssertionError("infra/bin/local-run sets no default for " + variable);
        }
        return m.group(1);
    }

    int port(String variable) {
        return Integer.parseInt(defaultOf(variable));
    }

    List<Integer> ports(String variable) {
        return Arrays.stream(defaultOf(variable).trim().split("\\s+")).map(Integer::valueOf).toList();
    }

    /** The data set local-run generates ({@code --coupon.generate="${COUPON_DATA:-full}"}). */
    String couponData() {
        Matcher m = Pattern.compile("--coupon\\.generate=\"\\$\\{COUPON_DATA:-([^}]*)}\"").matcher(scripts);
        if (!m.find()) {
            throw new AssertionError("infra/bin/local-run generates no coupon data");
        }
        return m.group(1);
    }

    /** The tables of local-run's {@code platform_start_connector "$CONNECTOR_PORT" table ...} call. */
    List<String> connectorTables() {
        Matcher m = Pattern.compile("platform_start_connector \"\\$CONNECTOR_PORT\"((?:\\s*\\\\?\\s*[a-z_]+\\.[a-z_]+)+)").matcher(scripts);
        if (!m.find()) {
            throw new AssertionError("infra/bin/local-run starts no connector with a table list");
        }
        List<String> tables = new ArrayList<>();
        for (String token : m.group(1).replace("\\", " ").trim().split("\\s+")) {
            tables.add(token);
        }
        return tables;
    }
}
