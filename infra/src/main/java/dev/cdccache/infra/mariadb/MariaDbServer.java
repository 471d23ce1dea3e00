package dev.cdccache.infra.mariadb;

import dev.cdccache.infra.DataDirectories;
import dev.cdccache.infra.process.FreePorts;
import dev.cdccache.infra.process.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A private MariaDB server from the system packages ({@code mariadbd}), in its own data directory, on its
 * own port and socket, with the binlog on in the form Debezium needs ({@code binlog_format=ROW},
 * {@code binlog_row_image=FULL}, a {@code server_id}).
 *
 * <p>Three users are created at every start (idempotently, through the server's {@code init-file}):
 * an admin with all privileges, the connector user with only what Debezium needs plus writing its
 * heartbeat row, and an application user for the services. The database {@code cdc_meta} with the
 * connector's heartbeat table is created too.
 *
 * <p>Restarting keeps the port and the data, so clients reconnect to the same address.
 */
public final class MariaDbServer implements AutoCloseable {

    /** Database that holds the connector's heartbeat table. */
    public static final String META_DATABASE = "cdc_meta";
    /**
     * The connectors' heartbeat table: one row per connector (id = its name, ts, epoch, tables), as in
     * {@code infra/docker/mysql-init/01-cdc-cache.sql}.
     */
    public static final String HEARTBEAT_TABLE = META_DATABASE + ".heartbeat";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path baseDir;
    private final int port;
    private final boolean binlog;
    private final int serverId;
    private final List<String> extraSettings;
    private final String adminUser = "cdc_admin";
    private final String adminPassword = "cdc-admin-pw";
    private final String connectorUser = "cdc_connector";
    private final String connectorPassword = "cdc-connector-pw";
    private final String appUser = "cdc_app";
    private final String appPassword = "cdc-app-pw";
    private ManagedProcess process;

    private MariaDbServer(Builder builder) {
        this.baseDir = builder.baseDir.toAbsolutePath();
        this.port = builder.port != 0 ? builder.port : FreePorts.next();
        this.binlog = builder.binlog;
        this.serverId = builder.serverId;
        this.extraSettings = List.copyOf(builder.extraSettings);
    }

    public static Builder builder(Path baseDir) {
        return new Builder(baseDir);
    }

    /** Initialises the data directory on first use, starts {@code mariadbd} and waits until it answers. */
    public synchronized MariaDbServer start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        String mariadbd = SystemPackages.requireMariaDb();
        try {
            Files.createDirectories(baseDir.resolve("tmp"));
            Path dataDir = baseDir.resolve("data");
            if (!Files.exists(dataDir.resolve("mysql"))) {
                initialiseDataDirectory(dataDir);
            }
            Files.writeString(baseDir.resolve("init.sql"), initSql(), StandardCharsets.UTF_8);
            Files.writeString(baseDir.resolve("my.cnf"), config(dataDir), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare MariaDB in " + baseDir, e);
        }
        process = ManagedProcess.start("mariadbd:" + port,
                List.of(mariadbd, "--defaults-file=" + baseDir.resolve("my.cnf")), Map.of(), baseDir,
                baseDir.resolve("mariadbd.log"));
        process.awaitCondition("a connection as " + adminUser + " on port " + port, START_TIMEOUT,
                this::answers);
        migrateHeartbeatTable();
        return this;
    }

    /** Graceful shutdown (SIGTERM): InnoDB and the binlog are flushed. */
    public synchronized void stop() {
        if (process != null) {
            process.stop(Duration.ofSeconds(30));
        }
    }

    /** SIGKILL: what a crash looks like to clients and to the binlog reader. */
    public synchronized void kill() {
        if (process != null) {
            process.kill();
        }
    }

    /** Stops gracefully and starts again on the same port with the same data. */
    public synchronized void restart() {
        stop();
        start();
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public synchronized void close() {
        stop();
        DataDirectories.delete(baseDir);
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public int serverId() {
        return serverId;
    }

    public Path baseDir() {
        return baseDir;
    }

    /** A JDBC URL for the MariaDB driver; {@code database} may be null. */
    public String jdbcUrl(String database) {
        return "jdbc:mariadb://" + host() + ":" + port + "/" + (database == null ? "" : database);
    }

    public String adminUser() {
        return adminUser;
    }

    public String adminPassword() {
        return adminPassword;
    }

    public String connectorUser() {
        return connectorUser;
    }

    public String connectorPassword() {
        return connectorPassword;
    }

    public String appUser() {
        return appUser;
    }

    public String appPassword() {
        return appPassword;
    }

    /** A new connection as the admin user; {@code database} may be null. The caller closes it. */
    public Connection adminConnection(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), adminUser, adminPassword);
    }

    /** Creates the database if missing and gives the application user all privileges on it. */
    public void createDatabase(String name) {
        requireIdentifier(name);
        execute(null, "CREATE DATABASE IF NOT EXISTS `" + name + "`",
                "GRANT ALL PRIVILEGES ON `" + name + "`.* TO '" + appUser + "'@'%'");
    }

    /** Runs statements as the admin user, in autocommit mode. */
    public void execute(String database, String... statements) {
        try (Connection connection = adminConnection(database); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("SQL failed on MariaDB port " + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs {@code script} with the {@code mariadb} command-line client as the admin user, as an administrator runs it
     * by hand: {@code mariadb -h <host> -P <port> -u <admin> [extra arguments] < script}. Session variables for the
     * script go in an {@code --init-command=SET @name='value', ...} argument.
     *
     * @return the client's output (stdout and stderr)
     * @throws IllegalStateException when the client exits non-zero, with its output
     */
    public String runScript(Path script, String... clientArguments) {
        List<String> command = new java.util.ArrayList<>(List.of(SystemPackages.requireMariaDbClient(), "--batch",
                "-h", host(), "-P", String.valueOf(port), "-u", adminUser));
        command.addAll(List.of(clientArguments));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(script.toFile());
            builder.environment().put("MYSQL_PWD", adminPassword); // not on the command line
            Process client = builder.start();
            String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!client.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                client.destroyForcibly();
                throw new IllegalStateException("mariadb < " + script + " did not finish within 60 s");
            }
            if (client.exitValue() != 0) {
                throw new IllegalStateException("mariadb < " + script + " failed with exit code " + client.exitValue()
                        + ":\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run the mariadb client", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Makes this server a replica of {@code primary}, from the primary's current GTID position on (what was
     * written before, users and the heartbeat table, exists on both already), applying each transaction no earlier
     * than {@code delay} after the primary committed it ({@code MASTER_DELAY}, whole seconds). Replicated changes
     * are written to this server's own binlog too ({@code log-slave-updates}), so a connector can read them here.
     */
    public void replicateFrom(MariaDbServer primary, Duration delay) {
        String position;
        try (Connection connection = primary.adminConnection(null); Statement statement = connection.createStatement();
                java.sql.ResultSet rs = statement.executeQuery("SELECT @@gtid_binlog_pos")) {
            rs.next();
            position = rs.getString(1) == null ? "" : rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the GTID position of " + primary + ": " + e.getMessage(), e);
        }
        execute(null, "STOP SLAVE",
                "SET GLOBAL gtid_slave_pos = '" + position + "'",
                "CHANGE MASTER TO MASTER_HOST = '" + primary.host() + "', MASTER_PORT = " + primary.port()
                        + ", MASTER_USER = '" + primary.adminUser() + "', MASTER_PASSWORD = '" + primary.adminPassword()
                        + "', MASTER_USE_GTID = slave_pos, MASTER_DELAY = " + delay.toSeconds()
                        + ", MASTER_CONNECT_RETRY = 1",
                "START SLAVE");
    }

    /** Changes how long this replica holds each transaction before applying it. */
    public void replicationDelay(Duration delay) {
        execute(null, "STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY = " + delay.toSeconds(), "START SLAVE");
    }

    /** Waits until this replica has applied everything {@code primary} has committed so far. */
    public void awaitReplicated(MariaDbServer primary, Duration timeout) {
        String position;
        try (Connection connection = primary.adminConnection(null); Statement statement = connection.createStatement();
                java.sql.ResultSet rs = statement.executeQuery("SELECT @@gtid_binlog_pos")) {
            rs.next();
            position = rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the GTID position of " + primary + ": " + e.getMessage(), e);
        }
        try (Connection connection = adminConnection(null); java.sql.PreparedStatement wait =
                connection.prepareStatement("SELECT MASTER_GTID_WAIT(?, ?)")) {
            wait.setString(1, position);
            wait.setDouble(2, timeout.toMillis() / 1000.0);
            try (java.sql.ResultSet rs = wait.executeQuery()) {
                rs.next();
                if (rs.getInt(1) != 0) {
                    throw new IllegalStateException(this + " did not apply " + position + " within " + timeout);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not wait for replication on " + this + ": " + e.getMessage(), e);
        }
    }

    /**
     * A data directory kept from before one row per connector has the heartbeat table {@code (id TINYINT, ts)}:
     * migrate it to the contract's shape and drop the legacy row, which no connector writes any more. Only when
     * needed: the ALTER goes to the binlog, where running connectors read it as DDL.
     */
    private void migrateHeartbeatTable() {
        try (Connection connection = adminConnection(null); Statement statement = connection.createStatement();
                java.sql.ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM information_schema.COLUMNS"
                        + " WHERE TABLE_SCHEMA = '" + META_DATABASE + "' AND TABLE_NAME = 'heartbeat' AND COLUMN_NAME = 'epoch'")) {
            rs.next();
            if (rs.getInt(1) > 0) {
                return;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not inspect " + HEARTBEAT_TABLE + " on port " + port + ": " + e.getMessage(), e);
        }
        execute(null, "ALTER TABLE " + HEARTBEAT_TABLE + " MODIFY id VARCHAR(190) NOT NULL, ADD COLUMN epoch VARCHAR(64) NOT NULL,"
                        + " ADD COLUMN tables TEXT NOT NULL",
                "DELETE FROM " + HEARTBEAT_TABLE + " WHERE epoch = ''");
    }

    private boolean answers() {
        try (Connection connection = adminConnection(null)) {
            return connection.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    private void initialiseDataDirectory(Path dataDir) throws IOException {
        // mariadb-install-db runs a bootstrap server; on a machine starved of CPU it has been seen to fail
        // once and succeed on a second try. A half-written data directory is wiped before that try.
        String firstFailure = null;
        for (int attempt = 1; attempt <= 2; attempt++) {
            DataDirectories.delete(dataDir);
            String installDb = SystemPackages.requireMariaDbInstallDb();
            Path log = baseDir.resolve("install-db-" + attempt + ".log");
            ManagedProcess install = ManagedProcess.start("mariadb-install-db",
                    List.of(installDb, "--no-defaults", "--datadir=" + dataDir, "--user=" + osUser(),
                            "--skip-test-db", "--auth-root-authentication-method=socket"),
                    Map.of(), baseDir, log);
            int exit = install.waitFor(Duration.ofSeconds(120));
            if (exit == 0) {
                return;
            }
            String failure = "mariadb-install-db failed with exit code " + exit + " (log " + log + "):\n" + install.tail(30);
            if (firstFailure != null) {
                throw new IllegalStateException(failure + "\nFirst attempt: " + firstFailure);
            }
            firstFailure = failure;
            System.err.println("[infra] " + failure + "\n[infra] retrying once with a clean data directory");
        }
    }

    private String config(Path dataDir) {
        StringBuilder cnf = new StringBuilder();
        cnf.append("[mariadbd]\n")
                .append("user=").append(osUser()).append('\n')
                .append("datadir=").append(dataDir).append('\n')
                .append("port=").append(port).append('\n')
                .append("bind-address=127.0.0.1\n")
                .append("socket=").append(baseDir.resolve("mariadbd.sock")).append('\n')
                .append("pid-file=").append(baseDir.resolve("mariadbd.pid")).append('\n')
                // temporary tables of its own: not in /tmp, where another server's or a cleaner's deletions meet them
                .append("tmpdir=").append(baseDir.resolve("tmp")).append('\n')
                .append("init-file=").append(baseDir.resolve("init.sql")).append('\n')
                .append("skip-name-resolve\n")
                .append("character-set-server=utf8mb4\n")
                .append("collation-server=utf8mb4_unicode_ci\n")
                .append("default-time-zone='+00:00'\n")
                .append("max-connections=500\n")
                // Test and local-run data need no durability across power loss; this keeps commits fast.
                .append("innodb-buffer-pool-size=256M\n")
                .append("innodb-flush-log-at-trx-commit=2\n")
                .append("innodb-doublewrite=0\n")
                .append("performance-schema=OFF\n");
        if (binlog) {
            cnf.append("server-id=").append(serverId).append('\n')
                    .append("log-bin=").append(dataDir.resolve("mariadb-bin")).append('\n')
                    .append("binlog-format=ROW\n")
                    .append("binlog-row-image=FULL\n")
                    .append("binlog-expire-logs-seconds=86400\n")
                    .append("sync-binlog=0\n")
                    // A replica writes what it applies to its own binlog, where a connector can read it.
                    .append("log-slave-updates=ON\n");
        } else {
            cnf.append("skip-log-bin\n");
        }
        extraSettings.forEach(line -> cnf.append(line).append('\n'));
        return cnf.toString();
    }

    private String initSql() {
        // Runs at every start; everything is idempotent. '%' because clients connect over TCP to 127.0.0.1.
        return String.join("\n",
                "CREATE USER IF NOT EXISTS '" + adminUser + "'@'%' IDENTIFIED BY '" + adminPassword + "';",
                "GRANT ALL PRIVILEGES ON *.* TO '" + adminUser + "'@'%' WITH GRANT OPTION;",
                "CREATE USER IF NOT EXISTS '" + connectorUser + "'@'%' IDENTIFIED BY '" + connectorPassword + "';",
                // SLAVE MONITOR: the connector reads SHOW SLAVE STATUS to tell a replica from a primary
                "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, SLAVE MONITOR, LOCK TABLES"
                        + " ON *.* TO '" + connectorUser + "'@'%';",
                "CREATE USER IF NOT EXISTS '" + appUser + "'@'%' IDENTIFIED BY '" + appPassword + "';",
                "CREATE DATABASE IF NOT EXISTS " + META_DATABASE + ";",
                heartbeatTableStatement() + ";",
                "GRANT INSERT, UPDATE ON " + HEARTBEAT_TABLE + " TO '" + connectorUser + "'@'%';",
                "FLUSH PRIVILEGES;",
                "");
    }

    /**
     * Creates the heartbeat table when it does not exist, in the shape of the contract, as
     * {@code cdc-connector/sql/setup.sql} and the compose init script do (packaging's {@code ComposeSettingsTest}
     * compares the three).
     */
    public static String heartbeatTableStatement() {
        return "CREATE TABLE IF NOT EXISTS " + HEARTBEAT_TABLE
                + " (id VARCHAR(190) NOT NULL PRIMARY KEY, ts DATETIME(6) NOT NULL, epoch VARCHAR(64) NOT NULL,"
                + " tables TEXT NOT NULL) ENGINE=InnoDB";
    }

    private static String osUser() {
        return System.getProperty("user.name");
    }

    private static void requireIdentifier(String name) {
        if (!name.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException("not a plain identifier: " + name);
        }
    }

    @Override
    public String toString() {
        return "MariaDB " + host() + ":" + port + (binlog ? " (binlog ROW)" : " (binlog off)");
    }

    /** Configures a {@link MariaDbServer}. */
    public static final class Builder {
        private final Path baseDir;
        private int port;
        private boolean binlog = true;
        private int serverId = 1;
        private final List<String> extraSettings = new java.util.ArrayList<>();

        private Builder(Path baseDir) {
            this.baseDir = Objects.requireNonNull(baseDir, "baseDir");
        }

        /** A fixed port; by default a free one is chosen. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Turns the binlog off: only for tests of the connector's "binlog off" error. */
        public Builder binlog(boolean binlog) {
            this.binlog = binlog;
            return this;
        }

        public Builder serverId(int serverId) {
            this.serverId = serverId;
            return this;
        }

        /** Lines added to the server's {@code [mariadbd]} section, such as {@code encrypt-binlog=ON}. */
        public Builder setting(String line) {
            this.extraSettings.add(line);
            return this;
        }

        public MariaDbServer build() {
            return new MariaDbServer(this);
        }
    }
}
