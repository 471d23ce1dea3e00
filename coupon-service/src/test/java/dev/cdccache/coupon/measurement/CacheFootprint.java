package dev.cdccache.coupon.measurement;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.process.JavaProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import tools.jackson.databind.json.JsonMapper;

/**
 * Measures the heap the caches of mode {@code local} take for the full data set, for one build or several side by
 * side: loads the full data set once with the jar's generator (100,000 coupons, 2,000 places), starts the connector,
 * then for each run and each jar starts one instance with the documented heap (-Xms512m -Xmx512m, G1), forces a
 * full GC and reads the heap in use, and fills the caches through the real load path in three steps, each followed
 * by a full GC and a reading: every coupon through the bulk endpoint ({@code coupons}); every place's
 * coupon-progress list ({@code placeCouponIds}, {@code places}, {@code couponProgress}); every coupon by its code
 * ({@code couponIdsByCode}). Prints each run, the class histogram's largest entries of the first run of each jar
 * and, for that run, what each step added by class (the difference of the histograms before and after it),
 * and per jar the median and range of the runs. Then, with every cache filled, the service's CPU time per request
 * that hits (bulk lookup, place list, single coupon). A program that prints figures, not a test.
 *
 * <pre>
 * ./mvnw -B -pl coupon-service verify -DskipITs        # builds the exec jar and copies the connector jar
 * ./mvnw -B -pl coupon-service dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * cd coupon-service &amp;&amp; java -cp target/test-classes:$(cat /tmp/cp.txt) \
 *     [-Dfootprint.jars=target/coupon-service-0.1.0-SNAPSHOT-exec.jar,/path/to/other-exec.jar] [-Dfootprint.runs=3] \
 *     [-Dfootprint.cpu=false] \
 *     dev.cdccache.coupon.measurement.CacheFootprint
 * </pre>
 * Jars are measured alternately (A B A B ...), so that a change in the machine's load hits both alike.
 */
public final class CacheFootprint {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int PORT = 18081;
    private static final String BASE = "http://127.0.0.1:" + PORT;
    private static final int COUPONS = 100_000;
    private static final int PLACES = 2_000;
    private static final double MIB = 1024 * 1024;
    private static final List<String> STEPS = List.of("coupons", "+ place lists and counts", "+ codes");

    private CacheFootprint() {
    }

    public static void main(String[] args) throws Exception {
        List<Path> jars = Arrays.stream(System.getProperty("footprint.jars",
                "target/coupon-service-0.1.0-SNAPSHOT-exec.jar").split(",")).map(Path::of).toList();
        int runs = Integer.getInteger("footprint.runs", 1);
        Path dir = Files.createTempDirectory("coupon-footprint");
        LocalStack stack = LocalStack.start(dir, 0, 0, 0);
        ConnectorProcess connector = null;
        try {
            stack.mariaDb().createDatabase("coupon_db");
            List<String> database = List.of(
                    "--spring.datasource.url=" + stack.mariaDb().jdbcUrl("coupon_db"),
                    "--spring.datasource.username=" + stack.mariaDb().appUser(),
                    "--spring.datasource.password=" + stack.mariaDb().appPassword());

            long started = System.nanoTime();
            JavaProcess generator = JavaProcess.builder("generator").jar(jars.get(0)).jvmArg("-Xmx512m")
                    .arg("--coupon.generate=full").args(database).logFile(dir.resolve("generator.log")).start();
            int exit = generator.waitFor(Duration.ofMinutes(10));
            System.out.printf("generator: exit %d, %d ms including JVM start; %s%n", exit, millisSince(started),
                    generator.tail(3).lines().filter(line -> line.contains("Generated")).findFirst().orElse(""));

            connector = ConnectorProcess.builder(Path.of("target/cdc-connector-exec.jar"), stack).name("footprint")
                    .tables(List.of("coupon_db.place", "coupon_db.coupon", "coupon_db.coupon_attribute",
                            "coupon_db.coupon_progress")).build().start();

            Map<Path, List<double[]>> results = new LinkedHashMap<>();
            for (int run = 1; run <= runs; run++) {
                for (Path jar : jars) {
                    double[] mib = measure(jar, run, database, stack, dir, run == 1);
                    results.computeIfAbsent(jar, k -> new ArrayList<>()).add(mib);
                }
            }
            System.out.println();
            System.out.println("Heap in use after a full GC, MiB above the started instance's (median [min - max] of "
                    + runs + " runs), per step (cumulative):");
            results.forEach((jar, measured) -> {
                StringBuilder line = new StringBuilder(jar.toString());
                for (int step = 0; step < STEPS.size(); step++) {
                    int s = step + 1;
                    double[] deltas = measured.stream().mapToDouble(m -> m[s] - m[0]).sorted().toArray();
                    line.append(String.format(Locale.ROOT, "%n  %-26s %6.1f [%.1f - %.1f]  = %.0f B per coupon",
                            STEPS.get(step), median(deltas), deltas[0], deltas[deltas.length - 1],
                            median(deltas) * MIB / COUPONS));
                }
                for (int kind = 0; kind < 3; kind++) {
                    int k = STEPS.size() + 1 + kind;
                    double[] millis = measured.stream().mapToDouble(m -> m[k]).sorted().toArray();
                    line.append(String.format(Locale.ROOT, "%n  CPU per request, %-14s %.3f ms [%.3f - %.3f]",
                            List.of("bulk of 200", "place list", "single coupon").get(kind), median(millis), millis[0],
                            millis[millis.length - 1]));
                }
                System.out.println(line);
            });
        } finally {
            if (connector != null) {
                connector.stop();
            }
            stack.close();
        }
    }

    /** One instance: heap (MiB) after a full GC when started, then after each step; then CPU ms per request. */
    private static double[] measure(Path jar, int run, List<String> database, LocalStack stack, Path dir,
            boolean histogram) throws Exception {
        JavaProcess service = JavaProcess.builder("coupon-service").jar(jar)
                .jvmArg("-Xms512m").jvmArg("-Xmx512m").jvmArg("-XX:+UseG1GC").args(database)
                .arg("--server.port=" + PORT)
                .arg("--cdc.invalidation.bootstrap-servers=" + stack.kafka().bootstrapServers())
                .logFile(dir.resolve("service-" + run + "-" + jar.getFileName() + ".log")).start();
        try {
            service.awaitHttpOk(BASE + "/actuator/health", Duration.ofMinutes(3));
            get("/coupons/1"); // the read path's classes loaded before the first reading
            double[] heap = new double[STEPS.size() + 1 + 3];
            heap[0] = heapAfterFullGc(service);
            Map<String, long[]> before = histogram ? classHistogram(service) : Map.of();

            long started = System.nanoTime();
            for (int first = 1; first <= COUPONS; first += 500) {
                StringBuilder ids = new StringBuilder();
                for (int id = first; id < first + 500; id++) {
                    ids.append(id == first ? "" : ",").append(id);
                }
                get("/coupons?ids=" + ids);
            }
            long couponsMillis = millisSince(started);
            heap[1] = heapAfterFullGc(service);
            before = printGrowth(histogram, service, before, STEPS.get(0), jar);
            started = System.nanoTime();
            List<String> places = new ArrayList<>();
            for (int place = 1; place <= PLACES; place++) {
                places.add("/places/" + place + "/coupon-progresses");
            }
            getAll(places);
            long placesMillis = millisSince(started);
            heap[2] = heapAfterFullGc(service);
            before = printGrowth(histogram, service, before, STEPS.get(1), jar);
            started = System.nanoTime();
            List<String> codes = new ArrayList<>();
            for (int id = 1; id <= COUPONS; id++) {
                codes.add(String.format("/coupons/by-code/CPN%08d", id));
            }
            getAll(codes);
            long codesMillis = millisSince(started);
            heap[3] = heapAfterFullGc(service);
            printGrowth(histogram, service, before, STEPS.get(2), jar);

            double[] cpu = Boolean.parseBoolean(System.getProperty("footprint.cpu", "true"))
                    ? cpuPerRequest(service) : new double[] {Double.NaN, Double.NaN, Double.NaN};
            System.arraycopy(cpu, 0, heap, STEPS.size() + 1, 3);
            System.out.printf(Locale.ROOT, "run %d %s: service CPU per request, all hits: bulk of 200 ids %.3f ms,"
                    + " place list %.3f ms, single coupon %.3f ms%n", run, jar, cpu[0], cpu[1], cpu[2]);

            StringBuilder sizes = new StringBuilder();
            for (String cache : List.of("coupons", "couponIdsByCode", "placeCouponIds", "places", "couponProgress")) {
                sizes.append(' ').append(cache).append('=').append(metric("cache.size?tag=cache:" + cache));
            }
            System.out.printf(Locale.ROOT, "run %d %s: heap %.1f MiB started, %.1f after coupons (%d ms), %.1f after"
                            + " place lists (%d ms), %.1f after codes (%d ms); cache sizes:%s%n", run, jar,
                    heap[0], heap[1], couponsMillis, heap[2], placesMillis, heap[3], codesMillis, sizes);
            if (histogram) {
                Process jcmd = new ProcessBuilder("jcmd", Long.toString(service.pid()), "GC.class_histogram")
                        .redirectErrorStream(true).start();
                String text = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                jcmd.waitFor();
                System.out.println("class histogram (largest 20), " + jar + ":");
                text.lines().skip(1).limit(23).forEach(System.out::println);
            }
            return heap;
        } finally {
            service.stop(Duration.ofSeconds(10));
        }
    }

    /**
     * The service's CPU time (user + system, from /proc) per request while it serves requests that all hit: 1,000
     * bulk lookups of 200 ids, 1,000 place lists, 5,000 single coupons, each kind timed apart after one untimed
     * pass of the same requests (JIT warm-up).
     */
    private static double[] cpuPerRequest(JavaProcess service) throws IOException {
        List<String> bulk = new ArrayList<>();
        List<String> places = new ArrayList<>();
        List<String> singles = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            StringBuilder ids = new StringBuilder();
            int first = 1 + (i * 7_919) % (COUPONS - 200);
            for (int id = first; id < first + 200; id++) {
                ids.append(id == first ? "" : ",").append(id);
            }
            bulk.add("/coupons?ids=" + ids);
            places.add("/places/" + (1 + (i * 997) % PLACES) + "/coupon-progresses");
        }
        for (int i = 0; i < 5_000; i++) {
            singles.add("/coupons/" + (1 + (i * 7_919L) % COUPONS));
        }
        double[] perRequest = new double[3];
        List<List<String>> kinds = List.of(bulk, places, singles);
        for (int k = 0; k < kinds.size(); k++) {
            getAll(kinds.get(k));
            long before = cpuTicks(service.pid());
            getAll(kinds.get(k));
            perRequest[k] = (cpuTicks(service.pid()) - before) * 10.0 / kinds.get(k).size(); // ticks of 10 ms
        }
        return perRequest;
    }

    /** utime + stime of a process, in clock ticks (100 per second on Linux). */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /**
     * What a step added to the heap, by class: the classes whose bytes grew most between the histograms (taken after
     * a full GC) before and after it, with instances and bytes added and bytes per instance.
     */
    private static Map<String, long[]> printGrowth(boolean histogram, JavaProcess service, Map<String, long[]> before,
            String step, Path jar) throws Exception {
        if (!histogram) {
            return before;
        }
        Map<String, long[]> after = classHistogram(service);
        System.out.println("heap growth by class (largest 12), step '" + step + "', " + jar + ":");
        after.entrySet().stream()
                .map(e -> {
                    long[] was = before.getOrDefault(e.getKey(), new long[2]);
                    return Map.entry(e.getKey(), new long[] {e.getValue()[0] - was[0], e.getValue()[1] - was[1]});
                })
                .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
                .limit(12)
                .forEach(e -> System.out.printf(Locale.ROOT, "  %+10d instances %+12d B (%s B each)  %s%n",
                        e.getValue()[0], e.getValue()[1],
                        e.getValue()[0] == 0 ? "-" : Long.toString(e.getValue()[1] / e.getValue()[0]), e.getKey()));
        return after;
    }

    /** {@code jcmd GC.class_histogram} (a full GC first): instances and bytes by class name. */
    private static Map<String, long[]> classHistogram(JavaProcess service) throws Exception {
        Process jcmd = new ProcessBuilder("jcmd", Long.toString(service.pid()), "GC.class_histogram")
                .redirectErrorStream(true).start();
        String text = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        jcmd.waitFor();
        Map<String, long[]> byClass = new HashMap<>();
        // "   1:        311627       20356848  [B (java.base@17.0.15)"; jcmd's first line is "<pid>:"
        text.lines().map(line -> line.trim().split("\\s+")).filter(f -> f.length >= 4 && f[0].matches("\\d+:"))
                .forEach(f -> byClass.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])}));
        return byClass;
    }

    private static double heapAfterFullGc(JavaProcess service) throws Exception {
        new ProcessBuilder("jcmd", Long.toString(service.pid()), "GC.run").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        return metric("jvm.memory.used?tag=area:heap") / MIB;
    }

    private static double metric(String query) throws IOException, InterruptedException {
        return JSON.readTree(get("/actuator/metrics/" + query)).path("measurements").get(0).path("value").asDouble();
    }

    /** Sends the requests eight at a time; every answer must be 200. */
    private static void getAll(List<String> paths) {
        Semaphore inFlight = new Semaphore(8);
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (String path : paths) {
            inFlight.acquireUninterruptibly();
            pending.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create(BASE + path)).build(),
                    HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) -> {
                        inFlight.release();
                        if (error != null || response.statusCode() != 200) {
                            throw new IllegalStateException(path + ": " + (error != null ? error : response.statusCode()));
                        }
                    }));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(BASE + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(path + ": " + response.statusCode() + " " + response.body());
        }
        return response.body();
    }
}
