package dev.cdccache.bench.mix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RequestMixTest {

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    @Test
    void theShippedRequestFilesAreValid() {
        for (String name : List.of("coupon-service.yml", "coupon-lookup-service.yml")) {
            RequestMix mix = RequestMix.load(Path.of("requests", name));
            assertThat(mix.requests()).isNotEmpty();
            assertThat(mix.percentages().stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(100.0);
        }
    }

    @Test
    void weightsBecomePercentagesThatAddUpToExactlyAHundred() throws IOException {
        RequestMix mix = RequestMix.load(write("m.yml", """
                requests:
                  - { weight: 1, path: /a }
                  - { weight: 1, path: /b }
                  - { weight: 1, path: /c }
                """));
        assertThat(mix.percentages()).containsExactly(33.3333, 33.3333, 33.3334);
        assertThat(mix.percentages().stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(100.0);
        assertThat(mix.requests().get(0).method()).isEqualTo("GET");
        assertThat(mix.requests().get(0).name()).isEqualTo("GET /a");
        assertThat(mix.requests().get(0).statuses()).isEmpty();
    }

    @Test
    void theFeederFillsRangesListsAndFormatsAndCsvHeadersNamePlaceholders() throws IOException {
        write("hot.csv", "id,\"code\"\n7,SEVEN\n8,EIGHT\n");
        RequestMix mix = RequestMix.load(write("m.yml", """
                requests:
                  - { name: post, weight: 2, method: post, path: "/x/#{n}?ids=#{ids}&id=#{id}", body: '{"c": "#{code}"}', status: [201, 409] }
                variables:
                  n:    { range: [5, 6] }
                  ids:  { range: [1, 3], count: [2, 4] }
                  name: { range: [42, 42], format: "CPN%08d" }
                csv: hot.csv
                """));
        RequestMix.Request post = mix.requests().get(0);
        assertThat(post.method()).isEqualTo("POST");
        assertThat(post.statuses()).containsExactly(201, 409);
        RequestFeeder feeder = new RequestFeeder(mix);
        for (int i = 0; i < 200; i++) {
            Map<String, Object> values = feeder.next();
            assertThat((Long) values.get("n")).isBetween(5L, 6L);
            List<Long> ids = Arrays.stream(((String) values.get("ids")).split(",")).map(Long::valueOf).toList();
            assertThat(ids).hasSizeBetween(2, 4).allSatisfy(id -> assertThat(id).isBetween(1L, 3L));
            assertThat(values.get("name")).isEqualTo("CPN00000042");
        }
        assertThat(mix.csv()).singleElement().satisfies(csv -> {
            assertThat(csv.file()).isEqualTo(dir.resolve("hot.csv"));
            assertThat(csv.columns()).containsExactly("id", "code");
        });
    }

    @Test
    void everyProblemOfTheFileIsReportedWithItsPlace() throws IOException {
        Path file = write("bad.yml", """
                requests:
                  - { weight: 0, path: /a }
                  - { weight: 1, method: FETCH, path: b }
                  - { weight: 1, path: "/c/#{missing}" }
                variables:
                  r: { range: [9, 1] }
                """);
        assertThatThrownBy(() -> RequestMix.load(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("requests[0].weight: a positive number is required")
                .hasMessageContaining("requests[1].method: one of")
                .hasMessageContaining("requests[1].path: a path starting with '/'")
                .hasMessageContaining("variables.r.range: [min, max]");
        Path undefined = write("undefined.yml", """
                requests:
                  - { weight: 1, path: "/c/#{missing}" }
                """);
        assertThatThrownBy(() -> RequestMix.load(undefined))
                .hasMessageContaining("requests[0]: #{missing} is neither a variable nor a CSV column");
    }

    @Test
    void fileHeadersGoWithEveryRequestAndARequestsOwnHeadersAddToOrReplaceThem() throws IOException {
        RequestMix mix = RequestMix.load(write("auth.yml", """
                headers:
                  Authorization: "Bearer ${API_TOKEN}"
                  X-Client: bench
                requests:
                  - { weight: 1, path: /a }
                  - { weight: 1, path: "/b/#{n}", headers: { X-Client: mobile, X-Request-Id: "req-#{n}" } }
                variables:
                  n: { range: [1, 9] }
                """), Map.of("API_TOKEN", "s3cret")::get);
        assertThat(mix.requests().get(0).headers())
                .containsExactly(Map.entry("Authorization", "Bearer s3cret"), Map.entry("X-Client", "bench"));
        assertThat(mix.requests().get(1).headers()).containsExactly(Map.entry("Authorization", "Bearer s3cret"),
                Map.entry("X-Client", "mobile"), Map.entry("X-Request-Id", "req-#{n}"));
    }

    @Test
    void headerValuesAreCheckedLikeThePathPlaceholdersAndEnvironmentReferences() throws IOException {
        Path file = write("bad-headers.yml", """
                headers: { Authorization: "Bearer ${NO_SUCH_TOKEN}" }
                requests:
                  - { weight: 1, path: /a }
                  - { weight: 1, path: /b, headers: [X-Id] }
                """);
        assertThatThrownBy(() -> RequestMix.load(file, name -> null))
                .hasMessageContaining("headers.Authorization: environment variable NO_SUCH_TOKEN is not set")
                .hasMessageContaining("requests[1].headers: a map of header name: value is required");
        Path undefined = write("undefined-header.yml", """
                requests:
                  - { weight: 1, path: /a, headers: { X-Id: "#{missing}" } }
                """);
        assertThatThrownBy(() -> RequestMix.load(undefined))
                .hasMessageContaining("requests[0]: #{missing} is neither a variable nor a CSV column");
    }

    @Test
    void anUnknownKeyIsAnErrorNamingItAndTheKnownKeys() throws IOException {
        Path file = write("typos.yml", """
                header: { Authorization: "Bearer x" }
                requests:
                  - { weight: 1, path: /a, staus: 404 }
                variables:
                  n: { range: [1, 2], cuont: [1, 2] }
                """);
        assertThatThrownBy(() -> RequestMix.load(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header: unknown key; the known keys are [requests, variables, csv, headers]")
                .hasMessageContaining("requests[0].staus: unknown key; the known keys are "
                        + "[name, weight, method, path, body, status, headers]")
                .hasMessageContaining("variables.n.cuont: unknown key; the known keys are [range, count, format]");
    }

    @Test
    void aFileWithoutRequestsIsRejected() throws IOException {
        Path file = write("empty.yml", "variables:\n  a: { range: [1, 2] }\n");
        assertThatThrownBy(() -> RequestMix.load(file)).hasMessageContaining("requests: a list of at least one request");
    }
}
