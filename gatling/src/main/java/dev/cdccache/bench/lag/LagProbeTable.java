package dev.cdccache.bench.lag;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The table the lag driver changes: {@code bench_db.lag_probe(id, version, payload)}. Each change writes a
 * new {@code version} (the writer's sequence number), which the change event carries to the clients; the
 * writer's commit stamp of that version is what lag is measured from.
 */
final class LagProbeTable {

    static final String DATABASE = "bench_db";
    static final String TABLE = DATABASE + ".lag_probe";

    private LagProbeTable() {
    }

    /** Creates the database and table (idempotent) and makes sure rows {@code 1..rows} exist. */
    static void create(Connection admin, int rows, String appUser) throws SQLException {
        try (Statement statement = admin.createStatement()) {
            statement.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
            if (appUser != null && !appUser.isBlank()) {
                statement.execute("GRANT ALL PRIVILEGES ON " + DATABASE + ".* TO '" + appUser + "'@'%'");
            }
            statement.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " ("
                    + "id BIGINT NOT NULL PRIMARY KEY, "
                    + "version BIGINT NOT NULL, "
                    + "payload VARCHAR(64) NOT NULL) ENGINE=InnoDB");
        }
        boolean autoCommit = admin.getAutoCommit();
        admin.setAutoCommit(false);
        try (PreparedStatement insert = admin.prepareStatement(
                "INSERT IGNORE INTO " + TABLE + " (id, version, payload) VALUES (?, 0, 'initial')")) {
            for (int id = 1; id <= rows; id++) {
                insert.setLong(1, id);
                insert.addBatch();
                if (id % 1000 == 0) {
                    insert.executeBatch();
                }
            }
            insert.executeBatch();
            admin.commit();
        } finally {
            admin.setAutoCommit(autoCommit);
        }
    }

    /**
     * Writes change {@code sequence} to row {@code 1 + sequence % rows} and commits (autocommit). The payload
     * carries {@code run}, a tag of this driver run: sequences restart at every run, and an UPDATE that writes
     * the values a row already has changes nothing, so MariaDB logs no event for it.
     */
    static void change(PreparedStatement update, long sequence, int rows, String run) throws SQLException {
        update.setLong(1, sequence);
        update.setString(2, "v" + sequence + "-" + run);
        update.setLong(3, 1 + sequence % rows);
        update.executeUpdate();
    }

    static String updateSql() {
        return "UPDATE " + TABLE + " SET version = ?, payload = ? WHERE id = ?";
    }
}
