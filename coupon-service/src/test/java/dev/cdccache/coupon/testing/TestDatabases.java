package dev.cdccache.coupon.testing;

import dev.cdccache.infra.LocalStack;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/** Per-test-class databases on the shared MariaDB, and plain SQL against them "from outside the service". */
public final class TestDatabases {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private TestDatabases() {
    }

    /** Creates a fresh database (granted to the app user) whose name starts with {@code prefix}. */
    public static String create(LocalStack stack, String prefix) {
        String name = prefix + "_" + ProcessHandle.current().pid() + "_" + SEQUENCE.incrementAndGet();
        stack.mariaDb().createDatabase(name);
        return name;
    }

    /** Runs statements as the admin user in one transaction: a writer that is not the service. */
    public static void sql(LocalStack stack, String database, String... statements) {
        try (Connection connection = stack.mariaDb().adminConnection(database)) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                for (String sql : statements) {
                    statement.execute(sql);
                }
            }
            connection.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The single long a query returns. */
    public static long queryLong(LocalStack stack, String database, String sql) {
        try (Connection connection = stack.mariaDb().adminConnection(database);
             Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
