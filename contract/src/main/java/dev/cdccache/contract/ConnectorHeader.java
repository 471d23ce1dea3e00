package dev.cdccache.contract;

import java.nio.charset.StandardCharsets;

/**
 * The Kafka header every record the connector publishes carries (change events, tombstones, heartbeats): name
 * {@value #NAME}, value the connector's name in UTF-8 (docs/contract.md, "The connector header"). It tells a client
 * which connector vouches for a record: a heartbeat is accepted only when the header equals the row's {@code id},
 * so one connector's heartbeats never prove the tables of another.
 */
public final class ConnectorHeader {

    /** The header's name. */
    public static final String NAME = "cdc-connector";

    private ConnectorHeader() {
    }

    /** The header value for a connector named {@code connectorName}. */
    public static byte[] value(String connectorName) {
        return connectorName.getBytes(StandardCharsets.UTF_8);
    }

    /** The connector name a header value carries. */
    public static String connectorName(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }
}
