package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.position.ReplicaFence;
import io.micrometer.core.instrument.FunctionCounter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Wraps the DataSources named in {@code cdc.invalidation.replica.data-sources}: every connection they hand out first
 * waits (at most {@code wait-timeout}) until its replica has applied every change the client has invalidated
 * ({@link ReplicaFence#awaitHeld}); if it has not, loads that read through it are served but not cached, and while a
 * connection is held, later loads on its thread are cached only if nothing invalidated them since its fence. A name
 * that is not a
 * DataSource bean fails start-up.
 */
final class ReplicaDataSources implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware {

    private final Set<String> names;
    private final Duration waitTimeout;
    private final ObjectProvider<InvalidationClient> client;
    private final Set<String> wrapped = new TreeSet<>();
    private volatile ReplicaFence fence;
    private ListableBeanFactory beanFactory;

    ReplicaDataSources(List<String> names, Duration waitTimeout, ObjectProvider<InvalidationClient> client) {
        if (waitTimeout == null || waitTimeout.isNegative()) {
            throw new InvalidConfigurationException("replica.wait-timeout", "must be zero or positive, was "
                    + waitTimeout);
        }
        this.names = Set.copyOf(names);
        this.waitTimeout = waitTimeout;
        this.client = client;
    }

    /** How long a checkout waits for the replica. */
    Duration waitTimeout() {
        return waitTimeout;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory instanceof ListableBeanFactory listable ? listable : null;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (names.contains(beanName) && bean instanceof DataSource dataSource) {
            wrapped.add(beanName);
            return new Fenced(dataSource);
        }
        return bean;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Set<String> missing = new TreeSet<>(names);
        missing.removeAll(wrapped);
        if (!missing.isEmpty()) {
            List<String> dataSources = beanFactory == null ? List.of()
                    : List.of(beanFactory.getBeanNamesForType(DataSource.class, false, false));
            throw new InvalidConfigurationException("replica.data-sources", "no DataSource bean named " + missing
                    + " (DataSource beans: " + dataSources + "); name the beans that read a replica");
        }
        if (!names.isEmpty()) {
            ReplicaFence f = fence();
            InvalidationClient c = client.getObject();
            FunctionCounter.builder("cdc.client.replica.waits", f, ReplicaFence::caughtUpCount)
                    .tags("client", c.instanceId(), "result", "caught_up")
                    .description("Replica connection checkouts, by whether the replica had applied every invalidated"
                            + " change within the wait").register(c.meterRegistry());
            FunctionCounter.builder("cdc.client.replica.waits", f, ReplicaFence::behindCount)
                    .tags("client", c.instanceId(), "result", "behind")
                    .description("Replica connection checkouts, by whether the replica had applied every invalidated"
                            + " change within the wait").register(c.meterRegistry());
        }
    }

    private ReplicaFence fence() {
        ReplicaFence f = fence;
        if (f == null) {
            synchronized (this) {
                if (fence == null) {
                    fence = new ReplicaFence(client.getObject().appliedPositions(), waitTimeout);
                }
                f = fence;
            }
        }
        return f;
    }

    /**
     * A replica DataSource whose connections are fenced at checkout; a connection held across loads keeps the loads
     * on its thread standing for that fence until it is closed.
     */
    private final class Fenced extends DelegatingDataSource {

        Fenced(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            return fence().awaitHeld(super.getConnection());
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return fence().awaitHeld(super.getConnection(username, password));
        }
    }
}
