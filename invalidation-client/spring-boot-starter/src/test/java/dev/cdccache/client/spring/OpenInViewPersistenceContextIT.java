package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.cache.PersistenceContextReads;
import dev.cdccache.client.spring.persistence.PersistenceContextTracking;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.mariadb.MariaDbServer;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Id;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Table;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.context.request.async.StandardServletAsyncWebRequest;
import org.springframework.web.context.request.async.WebAsyncManager;
import org.springframework.web.context.request.async.WebAsyncUtils;

/**
 * JPA's open-in-view, Spring Boot's default for web applications, with Hibernate against a real MariaDB: one
 * persistence context lives for the whole request and answers a {@code @Cacheable} method's miss with an entity it
 * read earlier in the request. Spring's own {@link OpenEntityManagerInViewInterceptor} opens and closes it around
 * each "request". Invalidations are applied to the cache the way the consumer applies them, right after the other
 * writer's commit (the event path is covered end to end elsewhere).
 */
class OpenInViewPersistenceContextIT {

    private static final String DB = "open_in_view_db";
    private static final AtomicLong ids = new AtomicLong(100);
    private static MariaDbServer mariaDb;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1", "cdc.invalidation.await-ready=5s");

    @BeforeAll
    static void database() {
        mariaDb = LocalStack.shared().mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB, "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)");
    }

    private static long newItem(String name) {
        long id = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO item VALUES (" + id + ", '" + name + "')");
        return id;
    }

    @Test
    void anEntityTheRequestReadBeforeAnAppliedChangeIsServedToTheRequestButNotCached() {
        runner.run(context -> {
            Repository repository = context.getBean(Repository.class);
            InvalidatingCache<Long, String> names = names(context);
            long id = newItem("old name");

            String inRequest = inRequest(context, () -> {
                assertThat(repository.listNames()).contains("old name"); // a listing early in the request
                otherWriterRenames(names, id, "new name");
                return repository.name(id);                            // the context answers: no query
            });

            assertThat(inRequest).as("the request's persistence context holds the entity it read").isEqualTo("old name");
            assertThat(names.lookup(id)).as("read before the applied change: not cached").isNull();
            assertThat(inRequest(context, () -> repository.name(id))).isEqualTo("new name");
            assertThat(names.lookup(id).value()).isEqualTo("new name");
        });
    }

    @Test
    void aTransactionalServiceCalledFromTheRequestDoesNotCacheWhatTheRequestReadBeforeItBegan() {
        runner.run(context -> {
            Repository repository = context.getBean(Repository.class);
            Service service = context.getBean(Service.class);
            InvalidatingCache<Long, String> names = names(context);
            long id = newItem("old name");

            String inRequest = inRequest(context, () -> {
                repository.listNames();
                otherWriterRenames(names, id, "new name");
                return service.nameInTransaction(id);
            });

            assertThat(inRequest).isEqualTo("old name");
            assertThat(names.lookup(id)).isNull();
        });
    }

    @Test
    void loadsInARequestAreCachedWhenNothingChangedSinceItsContextOpened() {
        runner.run(context -> {
            Repository repository = context.getBean(Repository.class);
            InvalidatingCache<Long, String> names = names(context);
            long id = newItem("name");

            assertThat(inRequest(context, () -> {
                repository.listNames();
                return repository.name(id);
            })).isEqualTo("name");

            assertThat(names.lookup(id).value()).isEqualTo("name");
            assertThat(PersistenceContextReads.isOpen()).as("the context's closing was seen").isFalse();
        });
    }

    @Test
    void anAsyncRequestsCallableDoesNotCacheWhatTheRequestReadBeforeAnAppliedChange() {
        runner.run(context -> {
            Repository repository = context.getBean(Repository.class);
            InvalidatingCache<Long, String> names = names(context);
            OpenEntityManagerInViewInterceptor interceptor = context.getBean(OpenEntityManagerInViewInterceptor.class);
            long id = newItem("old name");
            MockHttpServletRequest servletRequest = new MockHttpServletRequest();
            servletRequest.setAsyncSupported(true);
            MockHttpServletResponse servletResponse = new MockHttpServletResponse();
            ServletWebRequest request = new ServletWebRequest(servletRequest, servletResponse);
            WebAsyncManager asyncManager = WebAsyncUtils.getAsyncManager(request);
            asyncManager.setAsyncWebRequest(new StandardServletAsyncWebRequest(servletRequest, servletResponse));
            asyncManager.setTaskExecutor(new SimpleAsyncTaskExecutor("async-request-"));

            // The request thread: a listing, then another writer's change is applied, then a controller returns a
            // Callable (what Spring MVC does with a Callable or WebAsyncTask return value).
            interceptor.preHandle(request);
            repository.listNames();
            otherWriterRenames(names, id, "new name");
            asyncManager.startCallableProcessing(() -> repository.name(id));
            interceptor.afterConcurrentHandlingStarted(request);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!asyncManager.hasConcurrentResult() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            // The final dispatch: the context is bound again and closed at its end.
            interceptor.preHandle(request);
            interceptor.afterCompletion(request, null);

            assertThat(asyncManager.getConcurrentResult()).as("the request's context answered the Callable's load")
                    .isEqualTo("old name");
            assertThat(names.lookup(id)).as("read before the applied change: not cached").isNull();
        });
    }

    @Test
    void anEntityManagerBoundToAnotherThreadIsFoundThereWithItsOpening() {
        runner.run(context -> {
            EntityManagerFactory factory = context.getBean(EntityManagerFactory.class);
            EntityManager entityManager = factory.createEntityManager();
            try {
                java.util.concurrent.CompletableFuture.runAsync(() -> {
                    org.springframework.transaction.support.TransactionSynchronizationManager.bindResource(factory,
                            new org.springframework.orm.jpa.EntityManagerHolder(entityManager));
                    try {
                        assertThat(PersistenceContextReads.isOpen()).as("bound on this thread").isTrue();
                    } finally {
                        org.springframework.transaction.support.TransactionSynchronizationManager
                                .unbindResource(factory);
                    }
                }).get();
            } finally {
                entityManager.close();
            }
        });
    }

    @Test
    void theFactoryIsReportedAsTrackedAndTheOpenInViewWarningStaysQuiet() {
        runner.run(context -> {
            assertThat(PersistenceContextTracking.isTracked(context.getBean(EntityManagerFactory.class))).isTrue();
            assertThat(OpenInViewWarning.warnIfOn(context)).isFalse();
        });
    }

    private static <T> T inRequest(ApplicationContext context, java.util.function.Supplier<T> work) {
        OpenEntityManagerInViewInterceptor interceptor = context.getBean(OpenEntityManagerInViewInterceptor.class);
        WebRequest request = new ServletWebRequest(new MockHttpServletRequest());
        interceptor.preHandle(request);
        try {
            return work.get();
        } finally {
            interceptor.afterCompletion(request, null);
        }
    }

    private static InvalidatingCache<Long, String> names(ApplicationContext context) {
        return context.getBean(CdcCacheManager.class).invalidatingCache("names");
    }

    /** Another writer commits a change and the client applies its invalidation (what the consumer does). */
    private static void otherWriterRenames(InvalidatingCache<Long, String> names, long id, String name) {
        mariaDb.execute(DB, "UPDATE item SET name = '" + name + "' WHERE id = " + id);
        names.invalidate(id);
    }

    @Entity(name = "Item")
    @Table(name = "item")
    public static class Item {
        @Id
        private Long id;
        private String name;

        public Long getId() {
            return id;
        }

        public String getName() {
            return name;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    @EnableTransactionManagement
    static class App {

        @Bean
        InvalidationClient invalidationClient() {
            return MockKafka.readyClient(InvalidationClientConfig.builder().bootstrapServers("unused:1")
                    .maxStaleness(Duration.ofSeconds(30))
                    .cache(CacheDefinition.builder("names").table(DB + ".item").keyColumns("id").build())
                    .build());
        }

        @Bean
        DataSource dataSource() throws Exception {
            return new SimpleDriverDataSource(new org.mariadb.jdbc.Driver(), mariaDb.jdbcUrl(DB), mariaDb.appUser(),
                    mariaDb.appPassword());
        }

        @Bean
        LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource) {
            return TestJpa.entityManagerFactory(dataSource, Item.class);
        }

        @Bean
        JpaTransactionManager transactionManager(EntityManagerFactory factory) {
            return new JpaTransactionManager(factory);
        }

        @Bean
        OpenEntityManagerInViewInterceptor openEntityManagerInViewInterceptor(EntityManagerFactory factory) {
            OpenEntityManagerInViewInterceptor interceptor = new OpenEntityManagerInViewInterceptor();
            interceptor.setEntityManagerFactory(factory);
            return interceptor;
        }

        @Bean
        Repository repository() {
            return new Repository();
        }

        @Bean
        Service service(Repository repository) {
            return new Service(repository);
        }
    }

    static class Repository {
        @PersistenceContext
        private EntityManager entityManager;

        @Cacheable("names")
        public String name(Long id) {
            Item item = entityManager.find(Item.class, id);
            return item == null ? null : item.getName();
        }

        public List<String> listNames() {
            return entityManager.createQuery("select i from Item i", Item.class)
                    .getResultList().stream().map(Item::getName).toList();
        }
    }

    static class Service {
        private final Repository repository;

        Service(Repository repository) {
            this.repository = repository;
        }

        @Transactional(readOnly = true)
        public String nameInTransaction(Long id) {
            return repository.name(id);
        }
    }
}
