package dev.cdccache.connector.continuity;

import dev.cdccache.connector.config.ConnectorProperties.Flavor;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Objects;

/**
 * Which database server a binlog position belongs to. A binlog file name and offset mean something only on the
 * server that wrote them: after a failover to another server the same name holds other events.
 *
 * <ul>
 *   <li>MySQL: {@code @@server_uuid}, generated once per data directory and never shared by two servers.</li>
 *   <li>MariaDB has no server UUID. {@code @@server_id} is what replication itself requires to differ between the
 *       servers of one topology (a replica ignores events carrying its own id), so a failover to a replica always
 *       changes it. A server that reuses an id (a clone restored from a backup, a reset binlog) is caught by
 *       {@link BinlogHistory}, which checks the events at the stored position against the stored GTID position.</li>
 * </ul>
 *
 * @param serverId {@code @@server_id}
 * @param serverUuid {@code @@server_uuid} on MySQL, empty on MariaDB
 */
public record ServerIdentity(long serverId, String serverUuid) {

    public ServerIdentity {
        Objects.requireNonNull(serverUuid, "serverUuid");
    }

    /** Reads the identity of the server the connection is open to. */
    public static ServerIdentity of(Connection connection, Flavor flavor) throws SQLException {
        String query = flavor == Flavor.MYSQL ? "SELECT @@server_id, @@server_uuid" : "SELECT @@server_id, ''";
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return new ServerIdentity(rs.getLong(1), rs.getString(2) == null ? "" : rs.getString(2));
        }
    }

    /** As stored in the offsets' origin record. */
    Map<String, Object> toMap() {
        return Map.of("server_id", serverId, "server_uuid", serverUuid);
    }

    static ServerIdentity fromMap(Map<?, ?> map) {
        Object id = map.get("server_id");
        Object uuid = map.get("server_uuid");
        return new ServerIdentity(id instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(id)),
                uuid == null ? "" : uuid.toString());
    }

    @Override
    public String toString() {
        return serverUuid.isEmpty() ? "server_id " + serverId : "server_uuid " + serverUuid + " (server_id " + serverId + ")";
    }
}
