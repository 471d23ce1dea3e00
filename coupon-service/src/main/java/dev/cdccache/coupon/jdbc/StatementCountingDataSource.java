package dev.cdccache.coupon.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@code DataSource} that hands out connections whose statements report every execution to a
 * {@link StatementCounter}. Only statements go through a proxy; the pool behind it (and
 * {@code unwrap}, used by pool metrics) is untouched.
 */
public class StatementCountingDataSource extends DelegatingDataSource implements AutoCloseable {

    private final StatementCounter counter;

    public StatementCountingDataSource(DataSource target, StatementCounter counter) {
        super(target);
        this.counter = counter;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return countingConnection(super.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return countingConnection(super.getConnection(username, password));
    }

    /** Closes the pool behind this wrapper, so that the context's shutdown still releases its connections. */
    @Override
    public void close() throws Exception {
        if (getTargetDataSource() instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    private Connection countingConnection(Connection connection) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new ConnectionHandler(connection));
    }

    private final class ConnectionHandler implements InvocationHandler {
        private final Connection target;

        ConnectionHandler(Connection target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            Object result = invokeOn(target, method, args);
            if (result instanceof Statement statement) {
                Class<?> type = statement instanceof CallableStatement ? CallableStatement.class
                        : statement instanceof PreparedStatement ? PreparedStatement.class
                        : Statement.class;
                return Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {type},
                        new StatementHandler(statement));
            }
            return result;
        }
    }

    private final class StatementHandler implements InvocationHandler {
        private final Statement target;

        StatementHandler(Statement target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getName().startsWith("execute")) {
                counter.increment();
            }
            return invokeOn(target, method, args);
        }
    }

    private static Object invokeOn(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getTargetException();
        }
    }
}
