package dev.cdccache.connector.export;

import dev.cdccache.connector.config.DebeziumSettings;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Renders the connector's settings as the JSON body of Kafka Connect's {@code POST /connectors}:
 * the same Debezium connector and converters, so the events are identical. The database password
 * is exported as {@code ${env:CDC_CONNECTOR_DATABASE_PASSWORD}}, resolved by the worker's
 * {@code EnvVarConfigProvider}; the secret itself is never printed.
 *
 * <p>The export requires exactly-once source delivery ({@code exactly.once.support=required},
 * {@code transaction.boundary=poll}): every poll batch is one Kafka transaction, so a heartbeat is visible to the
 * clients (which read committed records only) no earlier than the changes before it. The worker must run with
 * {@code exactly.once.source.support=enabled}; a worker without it refuses the connector when it is created, rather
 * than running it with heartbeats that may overtake changes. {@code cdc.connector.debezium.*} cannot override
 * these settings (DebeziumOverrideCheck refuses them).
 */
public final class ConnectConfigExporter {

    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private final DebeziumSettings settings;

    public ConnectConfigExporter(DebeziumSettings settings) {
        this.settings = settings;
    }

    /** The connector JSON. */
    public String toJson() {
        return JSON.writeValueAsString(settings.connectConfig());
    }

    /** Whether the command line asks for an export ({@code --cdc.connector.export-connect-config[=true]}). */
    public static boolean requestedBy(String[] args) {
        for (String arg : args) {
            if (arg.equals("--cdc.connector.export-connect-config") || arg.equals("--cdc.connector.export-connect-config=true")) {
                return true;
            }
        }
        return Boolean.getBoolean("cdc.connector.export-connect-config");
    }
}
