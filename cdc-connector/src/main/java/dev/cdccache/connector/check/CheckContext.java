package dev.cdccache.connector.check;

import dev.cdccache.connector.config.ConnectorProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The only thing {@code cdc-connector check} starts of the application: its settings, bound and validated exactly as
 * the connector binds them (strict, with the same sources: the YAML file, the environment, configtree imports).
 * Not a {@code @Configuration}: the connector's component scan must not pick it up.
 */
@EnableConfigurationProperties(ConnectorProperties.class)
class CheckContext {
}
