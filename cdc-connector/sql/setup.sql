-- cdc-cache: everything the connector needs in your database, in one script (MariaDB 10.5+, MySQL 8.0+).
--
-- Creates the heartbeat table (one row per connector; docs/contract.md, "Heartbeats") and the connector's
-- database user with exactly the privileges it needs (docs/connector.md, "Database user"). Idempotent: run it
-- again to change the password, or once more per further database whose tables the connector captures.
-- A second connector gets its own user: run the script for it with its own @cdc_user and @cdc_password. A run
-- with the first connector's user would set that user's password anew under the running connector.
--
-- Parameters are session variables, set before the script runs, for example with the client's --init-command:
--
--   mariadb -h db.example.com -u admin -p \
--     --init-command="SET @cdc_database='shop', @cdc_password='s3cret-from-your-vault'" < cdc-connector/sql/setup.sql
--
--   @cdc_database        required: the database whose tables the connector captures (SELECT on it)
--   @cdc_password        required: the connector user's password
--   @cdc_user            the connector user's name            (default cdc_connector)
--   @cdc_host            the host it connects from            (default '%', any host)
--   @cdc_heartbeat_table the heartbeat table, database.table  (default cdc_meta.heartbeat; the connector's
--                        cdc.connector.heartbeat.table must name the same table)
--   @cdc_reload          1 (default): RELOAD and SHOW DATABASES on *.* for Debezium's short global read lock;
--                        0 where the server grants no RELOAD (Amazon RDS/Aurora): LOCK TABLES on the database
--                        instead, and Debezium locks the captured tables for its schema read
--
-- The statements are built from the parameters (names quoted, the password with QUOTE()) and run as prepared
-- statements, so the file itself never needs editing.

-- required parameters: stop with a message that names the missing one
SET @cdc_setup_check = IF(@cdc_database IS NULL OR @cdc_database = '',
    'SIGNAL SQLSTATE ''45000'' SET MESSAGE_TEXT = ''setup.sql: set @cdc_database to the database the connector captures''',
    'DO 0');
PREPARE cdc_setup FROM @cdc_setup_check; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;
SET @cdc_setup_check = IF(@cdc_password IS NULL OR @cdc_password = '',
    'SIGNAL SQLSTATE ''45000'' SET MESSAGE_TEXT = ''setup.sql: set @cdc_password to the connector user password''',
    'DO 0');
PREPARE cdc_setup FROM @cdc_setup_check; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;

-- defaults
SET @cdc_user = COALESCE(NULLIF(@cdc_user, ''), 'cdc_connector');
SET @cdc_host = COALESCE(NULLIF(@cdc_host, ''), '%');
SET @cdc_heartbeat_table = COALESCE(NULLIF(@cdc_heartbeat_table, ''), 'cdc_meta.heartbeat');
SET @cdc_reload = COALESCE(@cdc_reload, 1);

-- quoted names: `db`, `db`.`table`, 'user'@'host'
SET @cdc_db = CONCAT('`', REPLACE(@cdc_database, '`', '``'), '`');
SET @cdc_hb_db = CONCAT('`', REPLACE(SUBSTRING_INDEX(@cdc_heartbeat_table, '.', 1), '`', '``'), '`');
SET @cdc_hb = CONCAT(@cdc_hb_db, '.`', REPLACE(SUBSTRING_INDEX(@cdc_heartbeat_table, '.', -1), '`', '``'), '`');
SET @cdc_account = CONCAT(QUOTE(@cdc_user), '@', QUOTE(@cdc_host));

-- the heartbeat table: one row per connector (id = its name), captured like any table
SET @cdc_sql = CONCAT('CREATE DATABASE IF NOT EXISTS ', @cdc_hb_db);
PREPARE cdc_setup FROM @cdc_sql; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;
SET @cdc_sql = CONCAT('CREATE TABLE IF NOT EXISTS ', @cdc_hb,
    ' (id VARCHAR(190) NOT NULL PRIMARY KEY, ts DATETIME(6) NOT NULL, epoch VARCHAR(64) NOT NULL, tables TEXT NOT NULL)',
    ' ENGINE=InnoDB');
PREPARE cdc_setup FROM @cdc_sql; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;

-- the connector's user; a second run sets the password again
SET @cdc_sql = CONCAT('CREATE USER IF NOT EXISTS ', @cdc_account, ' IDENTIFIED BY ', QUOTE(@cdc_password));
PREPARE cdc_setup FROM @cdc_sql; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;
SET @cdc_sql = CONCAT('ALTER USER ', @cdc_account, ' IDENTIFIED BY ', QUOTE(@cdc_password));
PREPARE cdc_setup FROM @cdc_sql; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;
SET @cdc_sql = NULL;

-- Reading the binary log: REPLICATION SLAVE streams it, REPLICATION CLIENT reads the current position
-- (MariaDB 10.5+ shows it as BINLOG MONITOR). SLAVE MONITOR lets the connector tell a replica from a primary on
-- MariaDB 10.5.9+, which alone reads the /*M!100509 ... */ comment; on MySQL, REPLICATION CLIENT covers it.
SET @cdc_sql = CONCAT('GRANT REPLICATION SLAVE, REPLICATION CLIENT /*M!100509 , SLAVE MONITOR */ ON *.* TO ', @cdc_account);
PREPARE cdc_setup FROM @cdc_sql; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;

-- Debezium's schema snapshot at first start: RELOAD for the short global read lock that pins the binlog position
-- to the schema read, SHOW DATABASES to list the captured databases; without RELOAD, LOCK TABLES on the database.
SET @cdc_sql = IF(@cdc_reload = 1, CONCAT('GRANT RELOAD, SHOW DATABASES ON *.* TO ', @cdc_account),
    CONCAT('GRANT LOCK TABLES ON ', @cdc_db, '.* TO ', @cdc_account));
PREPARE cdc_setup FROM @cdc_sql; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;

-- The captured tables' structure; with snapshot-mode no_data (the default) no rows are read. Not *.*: the
-- connector reads no other database.
SET @cdc_sql = CONCAT('GRANT SELECT ON ', @cdc_db, '.* TO ', @cdc_account);
PREPARE cdc_setup FROM @cdc_sql; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;

-- The heartbeat row the connector writes every second and captures like a table.
SET @cdc_sql = CONCAT('GRANT SELECT, INSERT, UPDATE ON ', @cdc_hb, ' TO ', @cdc_account);
PREPARE cdc_setup FROM @cdc_sql; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;

-- Anonymous accounts (''@'localhost', ''@'<hostname>'), which mariadb-install-db creates, are more specific than
-- 'cdc_connector'@'%': the server matches a connection from its own host to them and refuses the connector's
-- password although the user exists. This script does not drop them (something may log in with them); it names
-- them and the statements that would. Reading mysql.user needs SELECT on it, which an administrator holds.
SET @cdc_anonymous = (SELECT GROUP_CONCAT(CONCAT('DROP USER ', QUOTE(user), '@', QUOTE(host), ';') ORDER BY host SEPARATOR ' ')
    FROM mysql.user WHERE user = '');
SET @cdc_sql = IF(@cdc_anonymous IS NULL, 'DO 0', CONCAT('SELECT ', QUOTE(CONCAT('WARNING: anonymous accounts exist.',
    ' A connection from a host they match (for ''''@''localhost'', the database server''s own host) logs in as them,',
    ' not as ', @cdc_account, ', and the connector is refused (access denied). Unless something logs in with them,',
    ' drop them as an administrator: ', @cdc_anonymous)), ' AS warning'));
PREPARE cdc_setup FROM @cdc_sql; EXECUTE cdc_setup; DEALLOCATE PREPARE cdc_setup;
SET @cdc_sql = NULL;

SELECT CONCAT('cdc-cache setup done: user ', @cdc_account, ' captures ', @cdc_db, ', heartbeat table ', @cdc_hb,
    '. Next: cdc-connector check --config <your.yml>') AS result;
