package dev.cdccache.ticketorchestrator.statement;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;

import javax.sql.DataSource;

/**
 * Wraps a {@link DataSource} so that every statement executed through it is reported to a
 * {@link StatementCounter}. JDK proxies keep it independent of the pool and driver; {@code unwrap} still
 * reaches the real pool (metrics and health indicators need it).
 */
public final class StatementCountingDataSource {

    private StatementCountingDataSource() {
    }

    /**
     * @param target  the real data source
     * @param counter where executed statements are reported
     * @return a data source that behaves like {@code target} and counts what it executes
     */
    public static DataSource wrap(DataSource target, StatementCounter counter) {
        return (DataSource) Proxy.newProxyInstance(StatementCountingDataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (isUnwrap(method, args) && ((Class<?>) args[0]).isInstance(target)) {
                        return method.getName().equals("unwrap") ? target : true;
                    }
                    Object result = invoke(target, method, args);
                    if (result instanceof Connection connection) {
                        return connection(connection, counter);
                    }
                    return result;
                });
    }

    private static Connection connection(Connection target, StatementCounter counter) {
        return (Connection) Proxy.newProxyInstance(StatementCountingDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    if (result instanceof Statement statement) {
                        // prepareStatement/prepareCall carry their SQL; plain statements get it on execute
                        String sql = method.getName().startsWith("prepare") ? (String) args[0] : null;
                        return statement(statement, sql, counter);
                    }
                    return result;
                });
    }

    private static Statement statement(Statement target, String preparedSql, StatementCounter counter) {
        Class<?> type = target instanceof CallableStatement ? CallableStatement.class
                : target instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().startsWith("execute")) {
                counter.executed(args != null && args.length > 0 && args[0] instanceof String sql ? sql : preparedSql);
            }
            return invoke(target, method, args);
        };
        return (Statement) Proxy.newProxyInstance(StatementCountingDataSource.class.getClassLoader(),
                new Class<?>[] {type}, handler);
    }

    private static boolean isUnwrap(Method method, Object[] args) {
        return (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor"))
                && args != null && args.length == 1 && args[0] instanceof Class<?>;
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
