package dev.cdccache.bench.simulation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The system properties every simulation reads (the run scripts pass them through
 * {@code ./mvnw gatling:test -D...}): where the services and the database are, the load profile, and
 * where to write the figures. Defaults match {@code gatling/bin/run-simulation}.
 */
final class SimulationSettings {

    private SimulationSettings() {
    }

    static String string(String name, String fallback) {
        String value = System.getProperty(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    static int integer(String name, int fallback) {
        return Integer.parseInt(string(name, String.valueOf(fallback)));
    }

    static double decimal(String name, double fallback) {
        return Double.parseDouble(string(name, String.valueOf(fallback)));
    }

    static List<String> list(String name, String fallback) {
        return Arrays.stream(string(name, fallback).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    static List<Double> decimals(String name, String fallback) {
        List<Double> values = new ArrayList<>();
        for (String s : list(name, fallback)) {
            values.add(Double.parseDouble(s));
        }
        return values;
    }

    static List<Integer> integers(String name, String fallback) {
        List<Integer> values = new ArrayList<>();
        for (String s : list(name, fallback)) {
            values.add(Integer.parseInt(s));
        }
        return values;
    }

    /**
     * Base URLs of coupon-service's instances under load: {@code -DbaseUrls}, else the environment variable
     * {@code COUPON_BASE_URLS}, else the two instances of {@code infra/bin/local-run} (8081, 8082).
     */
    static List<String> couponBaseUrls() {
        return baseUrls("COUPON_BASE_URLS", "http://127.0.0.1:8081,http://127.0.0.1:8082");
    }

    /**
     * Base URL(s) of ticket-orchestrator: {@code -DbaseUrls}, else the environment variable
     * {@code TICKET_BASE_URLS}, else the one of {@code infra/bin/local-run} (8083).
     */
    static List<String> ticketBaseUrls() {
        return baseUrls("TICKET_BASE_URLS", "http://127.0.0.1:8083");
    }

    /**
     * Base URLs of the instances under load (virtual users are spread over them round-robin): {@code -DbaseUrls},
     * else the comma-separated list in the environment variable {@code variable}, else {@code fallback}.
     */
    static List<String> baseUrls(String variable, String fallback) {
        String fromEnvironment = System.getenv(variable);
        return list("baseUrls", fromEnvironment == null || fromEnvironment.isBlank() ? fallback : fromEnvironment);
    }

    /**
     * JDBC URL (admin) the simulations read test data from and the mixed simulation's writer writes with:
     * {@code -DjdbcUrl}, else {@code infra/bin/local-run}'s MariaDB.
     */
    static String jdbcUrl() {
        return string("jdbcUrl", "jdbc:mariadb://127.0.0.1:13306/");
    }

    static String jdbcUser() {
        return string("jdbcUser", "root");
    }

    static String jdbcPassword() {
        return string("jdbcPassword", "");
    }

    /** Where the run's figures go ({@code -Dresults=...properties}); none when unset. */
    static Path results() {
        String value = string("results", null);
        return value == null ? null : Path.of(value);
    }

    /** A free-form label written with the figures (e.g. the cache mode under test). */
    static String label() {
        return string("label", "unlabelled");
    }
}
