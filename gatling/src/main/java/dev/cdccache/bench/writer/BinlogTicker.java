package dev.cdccache.bench.writer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Writes one row of {@code bench_db.tick} (a table no connector captures) every {@code --interval-ms}
 * (default 500) until stopped. The connector's Debezium engine runs its heartbeat query only while it
 * receives binlog events, so on a database that only serves reads the heartbeat stops, the clients
 * cannot prove freshness and bypass their caches. Until the connector keeps its heartbeat going on its
 * own, benchmark runs keep the binlog moving with this (and the report says so).
 *
 * <pre>
 * java -cp ... dev.cdccache.bench.writer.BinlogTicker --jdbc-url URL --user U --password P [--interval-ms 500]
 * </pre>
 */
public final class BinlogTicker {

    private BinlogTicker() {
    }

    public static void main(String[] args) throws Exception {
        String url = null;
        String user = null;
        String password = "";
        long interval = 500;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--jdbc-url" -> url = args[i + 1];
                case "--user" -> user = args[i + 1];
                case "--password" -> password = args[i + 1];
                case "--interval-ms" -> interval = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (url == null || user == null) {
            System.err.println("usage: BinlogTicker --jdbc-url URL --user U --password P [--interval-ms 500]");
            System.exit(2);
        }
        while (!Thread.currentThread().isInterrupted()) {
            try (Connection connection = DriverManager.getConnection(url, user, password)) {
                try (Statement ddl = connection.createStatement()) {
                    ddl.execute("CREATE DATABASE IF NOT EXISTS bench_db");
                    ddl.execute("CREATE TABLE IF NOT EXISTS bench_db.tick (id INT PRIMARY KEY, ts DATETIME(6) NOT NULL)");
                }
                try (PreparedStatement tick = connection.prepareStatement(
                        "REPLACE INTO bench_db.tick (id, ts) VALUES (1, UTC_TIMESTAMP(6))")) {
                    System.out.println("ticking every " + interval + " ms");
                    while (true) {
                        tick.executeUpdate();
                        Thread.sleep(interval);
                    }
                }
            } catch (SQLException e) {
                System.err.println("tick failed, retrying in 1 s: " + e.getMessage());
                Thread.sleep(1000);
            }
        }
    }
}
