package dev.cdccache.infra.cli;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.kafka.KafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Starts local infrastructure and keeps it up until stopped (SIGTERM or Ctrl-C), then stops it gracefully.
 * Data is kept in the given directory across runs.
 *
 * <pre>
 * java -cp ... dev.cdccache.infra.cli.InfraCommand up [--dir .local/stack] [--mariadb-port 13306]
 *      [--kafka-port 19092] [--redis-port 16379]
 * java -cp ... dev.cdccache.infra.cli.InfraCommand kafka [--dir .local/kafka] [--port 19092]
 * </pre>
 *
 * {@code up} starts the whole stack of the one-command local run; when everything answers it writes
 * {@code <dir>/stack.env} with the coordinates (shell syntax) and prints {@code STACK READY}. {@code kafka}
 * starts only a single KRaft broker (plain text, no authentication), for trying the connector and a service
 * against a database of one's own; when the broker serves metadata it prints {@code KAFKA READY} and its
 * bootstrap address.
 */
public final class InfraCommand {

    private static final String USAGE = "usage: InfraCommand up [--dir DIR] [--mariadb-port N] [--kafka-port N]"
            + " [--redis-port N]\n       InfraCommand kafka [--dir DIR] [--port N]";

    private InfraCommand() {
    }

    public static void main(String[] args) throws Exception {
        String command = args.length == 0 ? "" : args[0];
        switch (command) {
            case "up" -> stack(args);
            case "kafka" -> kafka(args);
            default -> {
                System.err.println(USAGE);
                System.exit(2);
            }
        }
    }

    private static void stack(String[] args) throws Exception {
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

    private static void kafka(String[] args) throws Exception {
        Path dir = Path.of(".local/kafka");
        int port = 19092;
        for (int i = 1; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--dir" -> dir = Path.of(require(args[i], value));
                case "--port" -> port = Integer.parseInt(require(args[i], value));
                default -> {
                    System.err.println("unknown option " + args[i] + "\n" + USAGE);
                    System.exit(2);
                }
            }
            i++;
        }
        Path dataDir = dir.toAbsolutePath();
        KafkaBroker broker = KafkaBroker.builder(dataDir).port(port).build();
        CountDownLatch stopped = new CountDownLatch(1);
        // Registered before the start, so that Ctrl-C during the start stops the broker JVM too.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("stopping the Kafka broker ...");
            broker.stop();
            System.out.println("Kafka broker stopped (data kept in " + dataDir + ")");
            System.out.flush();
            stopped.countDown();
        }, "kafka-shutdown"));
        System.out.println("starting a Kafka broker (KRaft, broker and controller in one JVM) on 127.0.0.1:" + port
                + ", data in " + dataDir + " ...");
        System.out.flush();
        broker.start();
        System.out.println("KAFKA READY bootstrap servers " + broker.bootstrapServers()
                + " (PLAINTEXT, no authentication, replication factor 1)");
        System.out.println("broker log: " + dataDir.resolve("broker.log") + "; Ctrl-C or SIGTERM stops it");
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
