-- The CDC connector's database user with the least privileges it needs (MariaDB 10.5+ and MySQL 8.0+).
--
-- Copy, then change before running as an administrator:
--   * 'change-me'  -> the connector's password (give it to the connector as CDC_CONNECTOR_DATABASE_PASSWORD
--                     or through a configtree file, never on the command line);
--   * coupon_db    -> each database whose tables the connector captures (one GRANT SELECT line per database);
--   * '%'          -> the host(s) the connector connects from, if you can narrow it.
-- docs/connector.md ("Database user") explains every privilege. The connector checks them at start-up
-- (SHOW GRANTS) and names what is missing.

CREATE USER IF NOT EXISTS 'cdc_connector'@'%' IDENTIFIED BY 'change-me';

-- Reading the binary log: REPLICATION SLAVE streams it, REPLICATION CLIENT reads the current position
-- (SHOW MASTER STATUS / SHOW BINARY LOG STATUS). MariaDB 10.5+ shows the latter as BINLOG MONITOR.
-- Telling a replica from a primary (SHOW SLAVE STATUS / SHOW REPLICA STATUS): REPLICATION CLIENT on MySQL,
-- SLAVE MONITOR on MariaDB 10.5.9+, which only MariaDB reads from the /*M!100509 ... */ comment.
GRANT REPLICATION SLAVE, REPLICATION CLIENT /*M!100509 , SLAVE MONITOR */ ON *.* TO 'cdc_connector'@'%';

-- Debezium's schema snapshot at first start: RELOAD for the short global read lock (FLUSH TABLES WITH READ
-- LOCK) that pins the binlog position to the schema read, SHOW DATABASES to list the captured databases.
GRANT RELOAD, SHOW DATABASES ON *.* TO 'cdc_connector'@'%';

-- The captured tables' structure (schema snapshot). SELECT on the database, not on *.*: the connector reads
-- no other database. With snapshot-mode no_data (the default) it reads no rows either.
GRANT SELECT ON coupon_db.* TO 'cdc_connector'@'%';

-- The heartbeat row the connector writes every second and captures like a table (per-connector freshness).
GRANT SELECT, INSERT, UPDATE ON cdc_meta.heartbeat TO 'cdc_connector'@'%';
