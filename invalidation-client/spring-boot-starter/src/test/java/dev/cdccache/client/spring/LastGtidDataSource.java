package dev.cdccache.client.spring;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * A stand-in JDBC driver for the read-your-writes listener: one connection whose session answers
 * {@code SELECT @@last_gtid} with {@link #lastGtid}, which a commit sets to {@link #nextCommit} when that is set (the
 * transaction binlogged something), as MariaDB does. Everything else is accepted and ignored.
 */
final class LastGtidDataSource {

    /** What {@code @@last_gtid} answers now: the session's last binlogged transaction ({@code null}: none). */
    final AtomicReference<String> lastGtid = new AtomicReference<>();
    /** The GTID the next commit binlogs, {@code null} if it writes nothing; cleared by the commit. */
    final AtomicReference<String> nextCommit = new AtomicReference<>();
    final DataSource dataSource;

    LastGtidDataSource() {
        Statement statement = (Statement) Proxy.newProxyInstance(Statement.class.getClassLoader(),
                new Class<?>[] {Statement.class},
                (proxy, method, args) -> method.getName().equals("executeQuery") ? resultSet(lastGtid.get())
                        : defaultOf(method.getReturnType()));
        Connection connection = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "createStatement" -> statement;
                    case "getAutoCommit" -> true;
                    case "commit" -> {
                        String committed = nextCommit.getAndSet(null);
                        if (committed != null) {
                            lastGtid.set(committed);
                        }
                        yield null;
                    }
                    default -> defaultOf(method.getReturnType());
                });
        dataSource = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> method.getName().equals("getConnection")
                        ? connection : defaultOf(method.getReturnType()));
    }

    private static ResultSet resultSet(String value) {
        boolean[] read = new boolean[1];
        return (ResultSet) Proxy.newProxyInstance(ResultSet.class.getClassLoader(), new Class<?>[] {ResultSet.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "next" -> {
                        boolean first = !read[0];
                        read[0] = true;
                        yield first;
                    }
                    case "getString" -> value;
                    default -> defaultOf(method.getReturnType());
                });
    }

    private static Object defaultOf(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        return null;
    }
}
