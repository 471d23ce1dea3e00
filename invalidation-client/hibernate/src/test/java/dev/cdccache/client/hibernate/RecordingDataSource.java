package dev.cdccache.client.hibernate;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource over the real MariaDB driver that records every statement executed (its SQL and bound
 * parameters) and can hold one thread right after a query has been read from the database, to force the
 * interleaving of a race. The MariaDB driver reads the whole result set in {@code executeQuery}, so when the
 * hook runs the rows have been read.
 */
final class RecordingDataSource implements DataSource {

    /** One executed statement. */
    record Executed(String sql, List<Object> parameters) {
    }

    /** Runs after a matching query of the armed thread has been executed. */
    record Hook(Thread thread, String tableFragment, Runnable action) {
    }

    private final String url;
    private final String user;
    private final String password;
    private final List<Executed> executed = new CopyOnWriteArrayList<>();
    private final AtomicReference<Hook> hook = new AtomicReference<>();

    RecordingDataSource(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    List<Executed> executed() {
        return List.copyOf(executed);
    }

    int count() {
        return executed.size();
    }

    /** Arms a one-shot hook: the next query by {@code thread} whose SQL mentions {@code table} runs {@code action}. */
    void holdAfterRead(Thread thread, String table, Runnable action) {
        hook.set(new Hook(thread, " " + table.toLowerCase(Locale.ROOT) + " ", action));
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = DriverManager.getConnection(url, user, password);
        return proxy(Connection.class, connection, (method, args, result) -> {
            if (result instanceof PreparedStatement statement && args != null && args.length > 0
                    && args[0] instanceof String sql) {
                return statementProxy(statement, sql);
            }
            return result;
        });
    }

    private PreparedStatement statementProxy(PreparedStatement statement, String sql) {
        List<Object> parameters = new ArrayList<>();
        return proxy(PreparedStatement.class, statement, (method, args, result) -> {
            String name = method.getName();
            if (name.startsWith("set") && args != null && args.length == 2 && args[0] instanceof Integer) {
                parameters.add(args[1]);
            }
            if (name.equals("executeQuery") || name.equals("execute") || name.equals("executeUpdate")) {
                executed.add(new Executed(sql, List.copyOf(parameters)));
                Hook h = hook.get();
                if (name.equals("executeQuery") && h != null && h.thread() == Thread.currentThread()
                        && (" " + sql.toLowerCase(Locale.ROOT).replace(",", " ") + " ").contains(h.tableFragment())
                        && hook.compareAndSet(h, null)) {
                    h.action().run();
                }
            }
            return result;
        });
    }

    @FunctionalInterface
    private interface After {
        Object apply(Method method, Object[] args, Object result) throws SQLException;
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, T target, After after) {
        InvocationHandler handler = (p, method, args) -> {
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            return after.apply(method, args, result);
        };
        return (T) Proxy.newProxyInstance(RecordingDataSource.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }

    static void closeQuietly(Statement statement) {
        try {
            statement.close();
        } catch (SQLException ignored) {
            // test helper
        }
    }
}
