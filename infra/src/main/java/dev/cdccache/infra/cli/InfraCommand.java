package dev.cdccache.infra.cli;

import dev.cdccache.infra.LocalStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Starts the local stack for the one-command local run and keeps it up until stopped (SIGTERM or
 * Ctrl-C), then stops MariaDB and Kafka gracefully. Data is kept in the given directory across runs.
 *
 * <pre>
 * java -cp ... dev.cdccache.infra.cli.InfraCommand up [--dir .local/stack] [--mariadb-port 13306]
 *      [--kafka-port 19092] [--redis-port 16379]
 * </pre>
 *
 * When everything answers it writes {@code <dir>/stack.env} with the coordinates (shell syntax) and
 * prints {@code STACK READY}.
 */
public final class InfraCommand {

    private InfraCommand() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !"up".equals(args[0])) {
            System.err.println("usage: InfraCommand up [--dir DIR] [--mariadb-port N] [--kafka-port N] [--redis-port N]");
            System.exit(2);
        }
        Path dir = Path.of(".local/stack");
        int mariaDbPort = 13306;
        int kafkaPort = 19092;
        int redisPort = 16379;
        for (int i = 1; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--dir" -> dir = Path.of(require(args[i], value));
                case "--mariadb-port" -> mariaDbPort = Integer.parseInt(require(args[i], value));
                case "--kafka-port" -> kafkaPort = Integer.parseInt(require(args[i], value));
                case "--redis-port" -> redisPort = Integer.parseInt(require(args[i], value));
                default -> {
                    System.err.println("unknown option " + args[i]);
                    System.exit(2);
                }
            }
            i++;
        }
        LocalStack stack = LocalStack.start(dir, mariaDbPort, kafkaPort, redisPort);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stack.close();
            stopped.countDown();
        }, "stack-shutdown"));
        stack.redis();
        writeEnv(dir.resolve("stack.env"), stack);
        System.out.println("STACK READY " + stack.mariaDb() + ", " + stack.kafka() + ", " + stack.redis());
        System.out.flush();
        stopped.await();
    }

    private static String require(String option, String value) {
        if (value == null) {
            System.err.println(option + " needs a value");
            System.exit(2);
        }
        return value;
    }

    private static void writeEnv(Path file, LocalStack stack) throws IOException {
        var db = stack.mariaDb();
        String env = String.join("\n",
                "MARIADB_HOST=" + db.host(),
                "MARIADB_PORT=" + db.port(),
                "MARIADB_ADMIN_USER=" + db.adminUser(),
                "MARIADB_ADMIN_PASSWORD=" + db.adminPassword(),
                "MARIADB_CONNECTOR_USER=" + db.connectorUser(),
                "MARIADB_CONNECTOR_PASSWORD=" + db.connectorPassword(),
                "MARIADB_APP_USER=" + db.appUser(),
                "MARIADB_APP_PASSWORD=" + db.appPassword(),
                "KAFKA_BOOTSTRAP_SERVERS=" + stack.kafka().bootstrapServers(),
                "REDIS_HOST=" + stack.redis().host(),
                "REDIS_PORT=" + stack.redis().port(),
                "");
        Files.writeString(file, env, StandardCharsets.UTF_8);
    }
}
