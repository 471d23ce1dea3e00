package dev.cdccache.verifier.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The verifier's own schema and every query its loaders and checks run. Loaders name their columns, so
 * the schema changes the writer makes (added and dropped columns) do not change what they read.
 */
public final class VerifierSchema {

    public static final String DATABASE = "verifier_db";
    public static final String ITEM_TABLE = DATABASE + ".item";
    /** A table no reader caches; faults are followed by a write to it to measure convergence. */
    public static final String PROBE_TABLE = DATABASE + ".probe";

    private static final String COLUMNS = "id, code, grp, version, payload";

    private VerifierSchema() {
    }

    /** Drops and creates the verifier's tables (the database itself must exist). */
    public static void create(Connection admin) throws SQLException {
        try (Statement statement = admin.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + ITEM_TABLE);
            statement.execute("DROP TABLE IF EXISTS " + PROBE_TABLE);
            statement.execute("CREATE TABLE " + ITEM_TABLE + " ("
                    + "id BIGINT NOT NULL PRIMARY KEY, "
                    + "code VARCHAR(64) NOT NULL, "
                    + "grp INT NOT NULL, "
                    + "version BIGINT NOT NULL, "
                    + "payload VARCHAR(200) NOT NULL, "
                    + "updated_at DATETIME(6) NOT NULL, "
                    + "UNIQUE KEY uk_item_code (code), KEY ix_item_grp (grp)) ENGINE=InnoDB");
            statement.execute("CREATE TABLE " + PROBE_TABLE
                    + " (id INT NOT NULL PRIMARY KEY, seq BIGINT NOT NULL) ENGINE=InnoDB");
        }
    }

    public static Item byId(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + ITEM_TABLE + " WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? item(rs) : null;
            }
        }
    }

    public static Map<Long, Item> byIds(Connection c, Collection<? extends Long> ids) throws SQLException {
        Map<Long, Item> found = new HashMap<>();
        if (ids.isEmpty()) {
            return found;
        }
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM " + ITEM_TABLE + " WHERE id IN (");
        for (int i = 0; i < ids.size(); i++) {
            sql.append(i == 0 ? "?" : ",?");
        }
        sql.append(')');
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int i = 1;
            for (Long id : ids) {
                ps.setLong(i++, id);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Item item = item(rs);
                    found.put(item.id(), item);
                }
            }
        }
        return found;
    }

    public static Item byCode(Connection c, String code) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + ITEM_TABLE + " WHERE code = ?")) {
            ps.setString(1, code);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? item(rs) : null;
            }
        }
    }

    /** The rows of a group in id order (an empty list for an empty group). */
    public static List<Item> byGroup(Connection c, long grp) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT " + COLUMNS + " FROM " + ITEM_TABLE + " WHERE grp = ? ORDER BY id")) {
            ps.setLong(1, grp);
            try (ResultSet rs = ps.executeQuery()) {
                List<Item> items = new ArrayList<>();
                while (rs.next()) {
                    items.add(item(rs));
                }
                return List.copyOf(items);
            }
        }
    }

    public static ItemStats stats(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*), COALESCE(SUM(version), 0) FROM " + ITEM_TABLE)) {
            rs.next();
            return new ItemStats(rs.getLong(1), rs.getLong(2));
        }
    }

    /** Every row, by id (for the final comparison). */
    public static Map<Long, Item> all(Connection c) throws SQLException {
        Map<Long, Item> rows = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + COLUMNS + " FROM " + ITEM_TABLE)) {
            while (rs.next()) {
                Item item = item(rs);
                rows.put(item.id(), item);
            }
        }
        return rows;
    }

    private static Item item(ResultSet rs) throws SQLException {
        return new Item(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getString(5));
    }
}
