package dev.cdccache.connector.export;

import dev.cdccache.connector.config.DebeziumSettings;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Renders the connector's settings as the JSON body of Kafka Connect's {@code POST /connectors}:
 * the same Debezium connector and converters, so the events are identical. The database password
 * is exported as {@code ${env:CDC_CONNECTOR_DATABASE_PASSWORD}}, resolved by the worker's
 * {@code EnvVarConfigProvider}; the secret itself is never printed.
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
