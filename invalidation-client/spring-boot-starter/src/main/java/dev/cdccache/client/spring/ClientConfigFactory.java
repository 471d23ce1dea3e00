package dev.cdccache.client.spring;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.SourceDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import org.springframework.cache.interceptor.SimpleKey;

/** Turns {@link CdcInvalidationProperties} into the core {@link InvalidationClientConfig}. */
final class ClientConfigFactory {

    private ClientConfigFactory() {
    }

    static InvalidationClientConfig.Builder builder(CdcInvalidationProperties properties, MeterRegistry registry) {
        InvalidationClientConfig.Builder builder = InvalidationClientConfig.builder()
                .bootstrapServers(properties.getBootstrapServers())
                .topicPrefix(properties.getTopicPrefix())
                .heartbeatTopic(properties.getHeartbeat().getTopic())
                .heartbeatRequired(properties.getHeartbeat().isRequired())
                .maxStaleness(properties.getMaxStaleness())
                .stalenessPolicy(properties.getOnStaleness())
                .stalenessCheck(properties.getStalenessCheck())
                .stalenessCheckSlack(properties.getStalenessCheckSlack())
                .requireTopics(properties.isRequireTopics())
                .maxMessageBytes(maxMessageBytes(properties))
                .pollTimeout(properties.getPollTimeout())
                .positionCheckInterval(properties.getPositionCheckInterval())
                .clientId(properties.getClientId())
                .commitLagByTable(properties.isCommitLagByTable())
                .kafkaProperties(properties.getKafka().getProperties())
                .kafkaSecurity(properties.getKafka().getSecurity())
                .meterRegistry(registry);
        for (Map.Entry<String, CdcInvalidationProperties.Cache> entry : properties.getCaches().entrySet()) {
            builder.cache(cache(entry.getKey(), entry.getValue()));
        }
        return builder;
    }

    private static int maxMessageBytes(CdcInvalidationProperties properties) {
        long bytes = properties.getMaxMessageSize() == null ? -1 : properties.getMaxMessageSize().toBytes();
        if (bytes <= 0 || bytes > Integer.MAX_VALUE) {
            throw new InvalidConfigurationException("max-message-size",
                    "must be between 1B and 2GB, was " + properties.getMaxMessageSize());
        }
        return (int) bytes;
    }

    private static CacheDefinition cache(String name, CdcInvalidationProperties.Cache cache) {
        CacheDefinition.Builder builder = CacheDefinition.builder(name)
                .keyType(cache.getKeyType())
                .keyNormalization(cache.getKeyNormalization())
                .spec(cache.getSpec())
                .cacheNulls(cache.isCacheNulls())
                .refreshAhead(cache.getRefreshAhead())
                // What @Cacheable builds for a method with several parameters, so composite keys match.
                .compositeKeyFactory(components -> new SimpleKey(components.toArray()));
        boolean shortForm = cache.getTable() != null || !cache.getKeyColumns().isEmpty()
                || cache.getEvict() == CdcInvalidationProperties.Evict.ALL || cache.getTopic() != null;
        if (shortForm) {
            if (cache.getTopic() != null) {
                // A topic override needs a SourceDefinition; the short form stays valid for error messages.
                if (!cache.getSources().isEmpty()) {
                    throw new InvalidConfigurationException("caches." + name,
                            "use either table/key-columns/evict or sources, not both");
                }
                builder.source(source("caches." + name, cache.getTable(), cache.getKeyColumns(), cache.getEvict(),
                        cache.getTopic()));
            } else {
                builder.table(cache.getTable());
                if (cache.getEvict() == CdcInvalidationProperties.Evict.ALL) {
                    if (!cache.getKeyColumns().isEmpty()) {
                        throw new InvalidConfigurationException("caches." + name + ".key-columns",
                                "must be empty when evict is 'all' (every change evicts the whole cache)");
                    }
                    builder.evictAll();
                } else {
                    builder.keyColumns(cache.getKeyColumns());
                }
            }
        }
        List<CdcInvalidationProperties.Source> sources = cache.getSources();
        for (int i = 0; i < sources.size(); i++) {
            CdcInvalidationProperties.Source source = sources.get(i);
            builder.source(source("caches." + name + ".sources[" + i + "]", source.getTable(), source.getKeyColumns(),
                    source.getEvict(), source.getTopic()));
        }
        return builder.build();
    }

    private static SourceDefinition source(String setting, String table, List<String> keyColumns,
            CdcInvalidationProperties.Evict evict, String topic) {
        if (evict == CdcInvalidationProperties.Evict.ALL && !keyColumns.isEmpty()) {
            throw new InvalidConfigurationException(setting + ".key-columns",
                    "must be empty when evict is 'all' (every change evicts the whole cache)");
        }
        SourceDefinition source = evict == CdcInvalidationProperties.Evict.ALL
                ? SourceDefinition.evictAll(table) : SourceDefinition.keys(table, keyColumns);
        return topic == null ? source : source.withTopic(topic);
    }
}
