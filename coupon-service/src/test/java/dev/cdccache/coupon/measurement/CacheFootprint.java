package dev.cdccache.coupon.measurement;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.process.JavaProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Measures what the docs quote about heap and generation: loads the full data set with the jar's
 * generator, starts one instance in local mode with the documented heap (-Xms512m -Xmx512m, G1), fills
 * every cache (all 100,000 coupons through the bulk endpoint, all 2,000 place lists), forces a GC and
 * prints the heap in use. A program that prints figures, not a test.
 *
 * <pre>
 * ./mvnw -B -pl coupon-service verify -DskipITs        # builds the exec jar and copies the connector jar
 * ./mvnw -B -pl coupon-service exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.cdccache.coupon.measurement.CacheFootprint
 * </pre>
 */
public final class CacheFootprint {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String BASE = "http://127.0.0.1:18081";

    private CacheFootprint() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("coupon-footprint");
        LocalStack stack = LocalStack.start(dir, 0, 0, 0);
        JavaProcess service = null;
        ConnectorProcess connector = null;
        try {
            stack.mariaDb().createDatabase("coupon_db");
            Path jar = Path.of("target/coupon-service-0.1.0-SNAPSHOT-exec.jar");
            List<String> database = List.of(
                    "--spring.datasource.url=" + stack.mariaDb().jdbcUrl("coupon_db"),
                    "--spring.datasource.username=" + stack.mariaDb().appUser(),
                    "--spring.datasource.password=" + stack.mariaDb().appPassword());

            long started = System.nanoTime();
            JavaProcess generator = JavaProcess.builder("generator").jar(jar).jvmArg("-Xmx512m")
                    .arg("--coupon.generate=full").args(database).logFile(dir.resolve("generator.log")).start();
            int exit = generator.waitFor(Duration.ofMinutes(10));
            System.out.printf("generator: exit %d, %d ms including JVM start; %s%n", exit, millisSince(started),
                    generator.tail(3).lines().filter(line -> line.contains("Generated")).findFirst().orElse(""));

            connector = ConnectorProcess.builder(Path.of("target/cdc-connector-exec.jar"), stack).name("footprint")
                    .tables(List.of("coupon_db.place", "coupon_db.coupon", "coupon_db.coupon_attribute")).build().start();
            service = JavaProcess.builder("coupon-service").jar(jar)
                    .jvmArg("-Xms512m").jvmArg("-Xmx512m").jvmArg("-XX:+UseG1GC").args(database)
                    .arg("--server.port=18081")
                    .arg("--cdc.invalidation.bootstrap-servers=" + stack.kafka().bootstrapServers())
                    .logFile(dir.resolve("service.log")).start();
            service.awaitHttpOk(BASE + "/actuator/health", Duration.ofMinutes(3));

            started = System.nanoTime();
            for (int first = 1; first <= 100_000; first += 500) {
                StringBuilder ids = new StringBuilder();
                for (int id = first; id < first + 500; id++) {
                    ids.append(id == first ? "" : ",").append(id);
                }
                get("/coupons?ids=" + ids);
            }
            for (int place = 1; place <= 2_000; place++) {
                get("/places/" + place + "/coupon-progresses");
            }
            System.out.printf("filled the caches in %d ms%n", millisSince(started));
            System.out.println("coupons cache: " + get("/actuator/metrics/cache.size?tag=cache:coupons"));
            new ProcessBuilder("jcmd", Long.toString(service.pid()), "GC.run").inheritIO().start().waitFor();
            System.out.println("heap after full GC: " + get("/actuator/metrics/jvm.memory.used?tag=area:heap"));
        } finally {
            if (service != null) {
                service.stop(Duration.ofSeconds(10));
            }
            if (connector != null) {
                connector.stop();
            }
            stack.close();
        }
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static String get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(BASE + path)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}
