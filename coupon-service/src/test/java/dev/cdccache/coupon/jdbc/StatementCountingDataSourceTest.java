package dev.cdccache.coupon.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The counting wrapper counts every execute call of every kind of statement, and nothing else. */
class StatementCountingDataSourceTest {

    /** A JDBC driver stand-in: answers every call with a neutral value, statements included. */
    private static Object stub(Class<?> type, AtomicBoolean closed) {
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            switch (method.getName()) {
                case "getConnection": return stub(Connection.class, closed);
                case "createStatement": return stub(Statement.class, closed);
                case "prepareStatement": return stub(PreparedStatement.class, closed);
                case "close": closed.set(true); return null;
                default: break;
            }
            Class<?> result = method.getReturnType();
            if (result == boolean.class) {
                return false;
            }
            if (result == int.class) {
                return 0;
            }
            if (result == long.class) {
                return 0L;
            }
            if (result == int[].class) {
                return new int[0];
            }
            return null;
        });
    }

    @Test
    void everyExecuteCallCountsOnce() throws Exception {
        StatementCounter counter = new StatementCounter();
        DataSource dataSource = new StatementCountingDataSource((DataSource) stub(DataSource.class, new AtomicBoolean()), counter);
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement prepared = connection.prepareStatement("SELECT 1")) {
                prepared.setLong(1, 5);
                prepared.executeQuery();
                prepared.addBatch();
                prepared.executeBatch();
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1");
                statement.executeUpdate("UPDATE t SET a = 1");
            }
            connection.commit();
        }
        assertThat(counter.count()).isEqualTo(4);
    }

    @Test
    void closingTheWrapperClosesThePoolBehindIt() throws Exception {
        AtomicBoolean closed = new AtomicBoolean();
        DataSource pool = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class, AutoCloseable.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        closed.set(true);
                    }
                    return null;
                });
        new StatementCountingDataSource(pool, new StatementCounter()).close();
        assertThat(closed).isTrue();
    }
}
