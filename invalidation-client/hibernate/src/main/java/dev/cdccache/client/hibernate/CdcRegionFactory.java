package dev.cdccache.client.hibernate;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.SourceDefinition;
import dev.cdccache.client.cache.InvalidationSequence;
import dev.cdccache.contract.ChangeTopics;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.hibernate.SessionFactory;
import org.hibernate.SessionFactoryObserver;
import org.hibernate.boot.spi.SessionFactoryOptions;
import org.hibernate.cache.CacheException;
import org.hibernate.cache.cfg.spi.DomainDataRegionBuildingContext;
import org.hibernate.cache.cfg.spi.DomainDataRegionConfig;
import org.hibernate.cache.spi.AbstractRegionFactory;
import org.hibernate.cache.spi.CacheKeysFactory;
import org.hibernate.cache.spi.DomainDataRegion;
import org.hibernate.cache.spi.QueryResultsRegion;
import org.hibernate.cache.spi.TimestampsRegion;
import org.hibernate.cache.spi.access.AccessType;
import org.hibernate.cache.spi.support.QueryResultsRegionTemplate;
import org.hibernate.cache.spi.support.TimestampsRegionTemplate;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Hibernate second-level cache whose regions are the invalidation client's Caffeine caches, kept consistent
 * with the database by the connector's change stream: a row changed by any writer evicts the entries built from
 * it in every instance, and loads that raced with a change are not cached.
 *
 * <pre>
 * hibernate.cache.region.factory_class=dev.cdccache.client.hibernate.CdcRegionFactory
 * hibernate.cache.use_second_level_cache=true
 * cdc.invalidation.bootstrap-servers=kafka:9092
 * cdc.invalidation.topic-prefix=cdc
 * </pre>
 *
 * <p>Nothing is configured per entity: which table and key columns evict which entries comes from Hibernate's
 * mapping metamodel (see {@link MetamodelBindings}). Once the session factory is built, the factory checks that
 * every table a cached role depends on is captured (its change topic exists) and fails start-up naming the
 * entity and the table otherwise; then it creates one {@link InvalidationClient} whose caches are the roles'
 * storages, starts it and waits up to {@code cdc.invalidation.await-ready} for it to be positioned.
 *
 * <p>{@link #nextTimestamp()} draws from {@link InvalidationSequence}, so a session's caching timestamp orders
 * its reads against applied invalidations: that is how loads are stamped before they read (see
 * {@link RoleStorage}) and how the query cache learns of external changes (see {@link TableChangeTimestamps}).
 */
public final class CdcRegionFactory extends AbstractRegionFactory {

    /** What a storage holds. */
    enum RoleKind { ENTITY, COLLECTION, NATURAL_ID }

    private record Role(RoleStorage storage, RoleKind kind, CacheKeysFactory keysFactory) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(CdcRegionFactory.class);
    /** Prefix of the client caches that only record when a table (a query space) changed. */
    static final String TABLE_CHANGES = "table-changes:";
    static final String QUERY_RESULTS = "query-results";

    private final Map<String, Role> roles = new ConcurrentHashMap<>();
    private final List<QueryResultsStorage> queryResults = new ArrayList<>();
    private final List<TableChangeTimestamps> timestamps = new ArrayList<>();
    private volatile HibernateCacheSettings settings;
    private volatile InvalidationClient client;

    @Override
    protected void prepareForUse(SessionFactoryOptions options, Map<String, Object> configValues) {
        this.settings = new HibernateCacheSettings(configValues);
    }

    @Override
    protected void releaseFromUse() {
        InvalidationClient c = client;
        client = null;
        if (c != null) {
            c.close();
        }
    }

    /**
     * A value of the client's {@link InvalidationSequence}: time-based, strictly increasing, and comparable with
     * what invalidations record.
     */
    @Override
    public long nextTimestamp() {
        return InvalidationSequence.next();
    }

    /** Hibernate's default of 60 s, in {@link #nextTimestamp()} units. */
    @Override
    public long getTimeout() {
        return 60_000L * InvalidationSequence.PER_MILLISECOND;
    }

    /** Local writes evict; other instances learn of them from the change stream like of any other write. */
    @Override
    public AccessType getDefaultAccessType() {
        return AccessType.NONSTRICT_READ_WRITE;
    }

    @Override
    public DomainDataRegion buildDomainDataRegion(DomainDataRegionConfig config,
            DomainDataRegionBuildingContext context) {
        verifyStarted();
        return new CdcDomainDataRegion(config, this, context);
    }

    @Override
    public QueryResultsRegion buildQueryResultsRegion(String regionName, SessionFactoryImplementor factory) {
        verifyStarted();
        QueryResultsStorage storage = new QueryResultsStorage(settings.queryResultsSpec);
        synchronized (queryResults) {
            queryResults.add(storage);
        }
        return new QueryResultsRegionTemplate(regionName, this, storage);
    }

    @Override
    public TimestampsRegion buildTimestampsRegion(String regionName, SessionFactoryImplementor factory) {
        verifyStarted();
        TableChangeTimestamps storage = new TableChangeTimestamps();
        synchronized (timestamps) {
            timestamps.add(storage);
        }
        return new TimestampsRegionTemplate(regionName, this, storage);
    }

    /** The storage of a role (one per entity hierarchy, collection role or natural-id cache). */
    RoleStorage storage(String role, String regionName, RoleKind kind, CacheKeysFactory keysFactory) {
        return roles.computeIfAbsent(role, r -> new Role(new RoleStorage(r, regionName), kind, keysFactory))
                .storage();
    }

    /**
     * The client behind the regions, for health and metrics; {@code null} until the session factory is built
     * and after it is closed.
     */
    public InvalidationClient client() {
        return client;
    }

    /** The names of the client caches backing cached roles (entity names, collection roles). */
    public Set<String> cachedRoles() {
        return new TreeSet<>(roles.keySet());
    }

    SessionFactoryObserver startupObserver() {
        return new SessionFactoryObserver() {
            @Override
            public void sessionFactoryCreated(SessionFactory factory) {
                connect((SessionFactoryImplementor) factory);
            }

            @Override
            public void sessionFactoryClosed(SessionFactory factory) {
                releaseClient();
            }
        };
    }

    private void releaseClient() {
        InvalidationClient c = client;
        client = null;
        if (c != null) {
            c.close();
        }
    }

    /** Binds every region to the change stream; fails if a cached role's table is not captured. */
    private void connect(SessionFactoryImplementor factory) {
        HibernateCacheSettings s = settings;
        if (factory.getSessionFactoryOptions().isMultiTenancyEnabled()) {
            throw new CacheException("The CDC second-level cache does not support multi-tenancy: change events carry "
                    + "no tenant, so they cannot evict a tenant's entries. Use another region factory.");
        }
        MetamodelBindings metamodel = new MetamodelBindings(factory, database(factory, s));
        List<MetamodelBindings.RoleBinding> bindings = new ArrayList<>();
        for (Role role : roles.values()) {
            bindings.add(metamodel.bind(role.storage(), role.kind(), role.keysFactory()));
        }
        Map<String, String> spaces = queryResults.isEmpty() ? Map.of() : metamodel.querySpaces();

        Set<String> topics = existingTopics(s);
        List<String> notCaptured = new ArrayList<>();
        for (MetamodelBindings.RoleBinding binding : bindings) {
            for (String table : binding.requiredTables()) {
                if (topics != null && !topics.contains(topic(s, table))) {
                    notCaptured.add(binding.description() + " is cached but its table " + table
                            + " is not captured (Kafka topic " + topic(s, table) + " does not exist)");
                }
            }
        }
        if (!notCaptured.isEmpty()) {
            throw new CacheException("CDC second-level cache: " + String.join("; ", notCaptured)
                    + ". Capture these tables in the connector (its 'tables' setting) or stop caching these roles "
                    + "(remove @Cache / @Cacheable). Kafka: " + s.client.bootstrapServers() + ", topic prefix '"
                    + s.client.topicPrefix() + "'");
        }

        // Topics that could not be listed are checked by the client instead: missing ones keep it from being fresh.
        InvalidationClientConfig.Builder config = s.clientConfig().requireTopics(s.client.requireTopics() || topics == null);
        for (MetamodelBindings.RoleBinding binding : bindings) {
            CacheDefinition.Builder cache = CacheDefinition.builder(binding.storage().name())
                    .spec(s.specOf(binding.storage().regionName()))
                    .cacheNulls(false);
            for (SourceDefinition source : binding.sources()) {
                // A table the role only optionally depends on (a collection's owner) is used only if captured.
                if (topics == null || topics.contains(source.topic(s.client.topicPrefix()))) {
                    cache.source(source);
                }
            }
            config.cache(cache.build());
            if (!binding.byKey()) {
                LOG.warn("CDC second-level cache: {} cannot be evicted by key; any change of {} evicts all of it",
                        binding.description(), binding.requiredTables());
            }
        }
        Map<String, String> tableCaches = new HashMap<>();
        Set<String> uncapturedSpaces = new TreeSet<>();
        for (String table : new TreeSet<>(spaces.values())) {
            if (topics != null && !topics.contains(topic(s, table))) {
                uncapturedSpaces.add(table);
                continue;
            }
            String name = TABLE_CHANGES + table;
            tableCaches.put(table, name);
            config.cache(CacheDefinition.builder(name).table(table).evictAll().spec("maximumSize=0").build());
        }
        if (!uncapturedSpaces.isEmpty()) {
            LOG.warn("CDC second-level cache: query results over {} are never served from the query cache: these "
                    + "tables are not captured", uncapturedSpaces);
        }
        s.customizer.accept(config);
        InvalidationClient created = new InvalidationClient(HibernateCacheSettings.named(config::build));

        for (MetamodelBindings.RoleBinding binding : bindings) {
            binding.storage().bind(created.cache(binding.storage().name()), binding.keys());
        }
        Map<String, InvalidatingCache<?, ?>> byTable = new LinkedHashMap<>();
        tableCaches.forEach((table, name) -> byTable.put(table, created.cache(name)));
        // Spaces are table expressions (also those a native query declares): resolved once each.
        Map<String, Optional<InvalidatingCache<?, ?>>> bySpace = new ConcurrentHashMap<>();
        for (TableChangeTimestamps storage : timestamps) {
            storage.bind(space -> bySpace.computeIfAbsent(space,
                    sp -> Optional.ofNullable(byTable.get(metamodel.qualify(sp)))).orElse(null));
        }
        for (QueryResultsStorage storage : queryResults) {
            storage.bind(created, QUERY_RESULTS);
        }
        client = created;
        created.start();
        if (!created.awaitReady(s.client.awaitReady())) {
            LOG.warn("CDC second-level cache: client {} not ready after {} (Kafka at {}?); regions pass loads through "
                    + "until it is", created.instanceId(), s.client.awaitReady(), s.client.bootstrapServers());
        }
        LOG.info("CDC second-level cache: {} roles kept consistent by the change stream ({}), {} query spaces tracked",
                bindings.size(), roles.keySet(), tableCaches.size());
    }

    private static String topic(HibernateCacheSettings s, String table) {
        return ChangeTopics.of(s.client.topicPrefix(), table);
    }

    /** The change topics that exist, or {@code null} if Kafka could not be asked within await-ready. */
    private static Set<String> existingTopics(HibernateCacheSettings s) {
        // The same connection settings as the client's consumer: a secured cluster answers nothing else.
        Map<String, Object> props = new HashMap<>(s.client.kafkaSecurity().clientProperties());
        props.putAll(s.client.kafkaProperties());
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, s.client.bootstrapServers());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, s.client.clientId() + "-topic-check");
        try (Admin admin = Admin.create(props)) {
            return admin.listTopics().names().get(Math.max(1, s.client.awaitReady().toMillis()), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.warn("CDC second-level cache: could not list Kafka topics at {} ({}); cannot check that the cached "
                    + "tables are captured. Missing topics will keep the client from being fresh, so entries older "
                    + "than max-staleness are not served", s.client.bootstrapServers(), e.toString());
            return null;
        }
    }

    /** The database of unqualified table names: the setting, else the connection's current catalog. */
    private static String database(SessionFactoryImplementor factory, HibernateCacheSettings s) {
        if (s.database != null && !s.database.isBlank()) {
            return s.database;
        }
        var catalog = factory.getJdbcServices().getJdbcEnvironment().getCurrentCatalog();
        if (catalog != null && !catalog.getText().isBlank()) {
            return catalog.getText();
        }
        ConnectionProvider connections = factory.getServiceRegistry().getService(ConnectionProvider.class);
        if (connections != null) {
            try {
                Connection connection = connections.getConnection();
                try {
                    String current = connection.getCatalog();
                    if (current != null && !current.isBlank()) {
                        return current;
                    }
                } finally {
                    connections.closeConnection(connection);
                }
            } catch (SQLException e) {
                throw new CacheException("CDC second-level cache: cannot read the current database to qualify table "
                        + "names; set " + HibernateCacheSettings.DATABASE, e);
            }
        }
        throw new CacheException("CDC second-level cache: the connection names no current database; set "
                + HibernateCacheSettings.DATABASE + " to the database of unqualified table names");
    }
}
