package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.position.CommitPosition;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.Ordered;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The instance floor is raised before every other after-commit callback: were it ordered like an unordered one, an
 * after-commit callback with an explicit order (an {@code @Order}ed {@code @TransactionalEventListener}, a
 * synchronization that implements {@code getOrder}) would run before it, and its cache reads would not be held to
 * the write the transaction just committed. The JDBC driver is a stand-in answering {@code @@last_gtid}.
 */
class ReadYourWritesListenerOrderTest {

    private final InvalidationClient client = new InvalidationClient(InvalidationClientConfig.builder()
            .bootstrapServers("unused:1")
            .cache(CacheDefinition.builder("names").table("db.item").keyColumns("id").build()).build());

    @AfterEach
    void close() {
        client.close();
    }

    /** A connection whose session's last GTID is {@code lastGtid}; everything else is accepted and ignored. */
    static DataSource dataSource(String lastGtid) {
        ResultSet rs = (ResultSet) Proxy.newProxyInstance(ResultSet.class.getClassLoader(),
                new Class<?>[] {ResultSet.class}, new java.lang.reflect.InvocationHandler() {
                    private boolean read;

                    @Override
                    public Object invoke(Object proxy, java.lang.reflect.Method method, Object[] args) {
                        return switch (method.getName()) {
                            case "next" -> {
                                boolean first = !read;
                                read = true;
                                yield first;
                            }
                            case "getString" -> lastGtid;
                            default -> defaultOf(method.getReturnType());
                        };
                    }
                });
        Statement statement = (Statement) Proxy.newProxyInstance(Statement.class.getClassLoader(),
                new Class<?>[] {Statement.class},
                (proxy, method, args) -> method.getName().equals("executeQuery") ? rs
                        : defaultOf(method.getReturnType()));
        Connection connection = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "createStatement" -> statement;
                    case "getAutoCommit" -> true;
                    default -> defaultOf(method.getReturnType());
                });
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> method.getName().equals("getConnection")
                        ? connection : defaultOf(method.getReturnType()));
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

    @Test
    void anOrderedAfterCommitCallbackOfTheWritingTransactionIsHeldToItsWrite() {
        DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource("0-1-451"));
        manager.addListener(new ReadYourWritesListener(() -> client));
        AtomicReference<CommitPosition> floorAfterCommit = new AtomicReference<>();

        new TransactionTemplate(manager).executeWithoutResult(status ->
                // e.g. an @Order(0) @TransactionalEventListener that reads the row it was told about through a cache
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public int getOrder() {
                        return Ordered.HIGHEST_PRECEDENCE + 100;
                    }

                    @Override
                    public void afterCommit() {
                        floorAfterCommit.set(client.readYourWrites().floor());
                    }
                }));

        assertThat(client.readYourWrites().floor()).as("raised by the commit").hasToString("0-1-451");
        assertThat(floorAfterCommit.get()).as("the floor a cache read in the ordered callback is held to")
                .hasToString("0-1-451");
    }
}
