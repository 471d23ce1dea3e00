package dev.cdccache.coupon.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A tiny real-HTTP client for the service's JSON API. */
public final class ApiClient {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String baseUrl;

    ApiClient(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    public String baseUrl() {
        return baseUrl;
    }

    /** A response: status, content type, body parsed as JSON (null when empty) and all headers. */
    public record Response(int status, String contentType, String text, HttpHeaders headers) {

        /** The first value of header {@code name}, or null. */
        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        public JsonNode json() {
            return text.isEmpty() ? null : JSON.readTree(text);
        }

        /** The {@code detail} of a problem response. */
        public String detail() {
            return json().path("detail").asString();
        }

        public boolean isProblem() {
            return contentType != null && contentType.startsWith("application/problem+json");
        }

        @Override
        public String toString() {
            return status + " " + text;
        }
    }

    public Response get(String path) {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET());
    }

    /** A GET with request headers, given as name, value, name, value... */
    public Response get(String path, String... headers) {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).headers(headers).GET());
    }

    public Response post(String path, String jsonBody) {
        return send(withBody(HttpRequest.newBuilder(URI.create(baseUrl + path)), "POST", jsonBody));
    }

    public Response put(String path, String jsonBody) {
        return send(withBody(HttpRequest.newBuilder(URI.create(baseUrl + path)), "PUT", jsonBody));
    }

    private static HttpRequest.Builder withBody(HttpRequest.Builder request, String method, String jsonBody) {
        return request.header("Content-Type", "application/json")
                .method(method, jsonBody == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(jsonBody));
    }

    private static Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = HTTP.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse(null), response.body(),
                    response.headers());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** JSON for the tests' request bodies. */
    public static String toJson(Object value) {
        return JSON.writeValueAsString(value);
    }
}
