package dev.cdccache.client.hibernate;

import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.parsing.ChangeEvent;
import dev.cdccache.infra.LocalStack;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.hibernate.SessionFactory;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/** One service instance: its own session factory over the real MariaDB, its own CDC second-level cache. */
final class HibernateInstance implements AutoCloseable {

    final RecordingDataSource dataSource;
    final SessionFactory sessionFactory;
    final List<ChangeEvent> applied = new CopyOnWriteArrayList<>();
    private volatile Consumer<ChangeEvent> onApplied = event -> { };

    HibernateInstance(LocalStack stack, String database, List<Class<?>> entities) {
        var mariaDb = stack.mariaDb();
        this.dataSource = new RecordingDataSource(mariaDb.jdbcUrl(database), mariaDb.adminUser(),
                mariaDb.adminPassword());
        Map<String, Object> settings = new HashMap<>();
        settings.put("hibernate.connection.datasource", dataSource);
        settings.put("hibernate.cache.region.factory_class", CdcRegionFactory.class.getName());
        settings.put("hibernate.cache.use_second_level_cache", "true");
        settings.put("hibernate.cache.use_query_cache", "true");
        settings.put("hibernate.hbm2ddl.auto", "none");
        settings.put("cdc.invalidation.bootstrap-servers", stack.kafka().bootstrapServers());
        settings.put("cdc.invalidation.max-staleness", "5s");
        settings.put("cdc.invalidation.await-ready", "30s");
        settings.put("cdc.invalidation.hibernate.config-customizer",
                (Consumer<InvalidationClientConfig.Builder>) builder -> builder.listener(event -> {
                    applied.add(event);
                    onApplied.accept(event);
                }));
        StandardServiceRegistry registry = new StandardServiceRegistryBuilder().applySettings(settings).build();
        try {
            MetadataSources sources = new MetadataSources(registry);
            entities.forEach(sources::addAnnotatedClass);
            this.sessionFactory = sources.buildMetadata().buildSessionFactory();
        } catch (RuntimeException e) {
            StandardServiceRegistryBuilder.destroy(registry);
            throw e;
        }
    }

    CdcRegionFactory regionFactory() {
        return (CdcRegionFactory) sessionFactory.unwrap(SessionFactoryImplementor.class).getCache().getRegionFactory();
    }

    /** Runs {@code action} on the consumer thread after each applied event matching {@code filter}. */
    void onApplied(Predicate<ChangeEvent> filter, Runnable action) {
        onApplied = event -> {
            if (filter.test(event)) {
                action.run();
            }
        };
    }

    boolean hasApplied(Predicate<ChangeEvent> filter) {
        return applied.stream().anyMatch(filter);
    }

    @Override
    public void close() {
        sessionFactory.close();
    }
}
