-- cdc-cache on MySQL 8 (infra/docker-compose.yml; run once by the image on an empty data directory).
-- The same users and heartbeat table the local run creates (infra's MariaDbServer); the connector gets exactly
-- the least-privilege grants cdc-connector/sql/setup.sql gives, for the two databases it captures here
-- (packaging's ComposeSettingsTest compares the grants and the heartbeat table with setup.sql's).
-- The packaging module runs this file against MariaDB and starts the connector on it.

-- the admin the local run's tools use
CREATE USER IF NOT EXISTS 'cdc_admin'@'%' IDENTIFIED BY 'cdc-admin-pw';
GRANT ALL PRIVILEGES ON *.* TO 'cdc_admin'@'%' WITH GRANT OPTION;

-- the connector: reading the binlog, the schema snapshot, the captured databases' structure (docs/connector.md,
-- "Database user"), and its heartbeat row below
CREATE USER IF NOT EXISTS 'cdc_connector'@'%' IDENTIFIED BY 'cdc-connector-pw';
GRANT REPLICATION SLAVE, REPLICATION CLIENT /*M!100509 , SLAVE MONITOR */ ON *.* TO 'cdc_connector'@'%';
GRANT RELOAD, SHOW DATABASES ON *.* TO 'cdc_connector'@'%';
GRANT SELECT ON coupon_db.* TO 'cdc_connector'@'%';
GRANT SELECT ON ticket_db.* TO 'cdc_connector'@'%';

-- the services: their own databases only (they migrate their schemas with Flyway)
CREATE USER IF NOT EXISTS 'cdc_app'@'%' IDENTIFIED BY 'cdc-app-pw';
CREATE DATABASE IF NOT EXISTS coupon_db;
CREATE DATABASE IF NOT EXISTS ticket_db;
GRANT ALL PRIVILEGES ON coupon_db.* TO 'cdc_app'@'%';
GRANT ALL PRIVILEGES ON ticket_db.* TO 'cdc_app'@'%';

-- the heartbeat: one row per connector (id = connector name), captured like any table
CREATE DATABASE IF NOT EXISTS cdc_meta;
CREATE TABLE IF NOT EXISTS cdc_meta.heartbeat (
    id     VARCHAR(190) NOT NULL PRIMARY KEY,
    ts     DATETIME(6)  NOT NULL,
    epoch  VARCHAR(64)  NOT NULL,
    tables TEXT         NOT NULL
) ENGINE = InnoDB;
GRANT SELECT, INSERT, UPDATE ON cdc_meta.heartbeat TO 'cdc_connector'@'%';

FLUSH PRIVILEGES;
