package dev.cdccache.connector.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.config.ConnectorProperties;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * What the connector and {@code check} say when the server refuses the connector's login (error 1045): an existing
 * user is also refused when an anonymous account matches the connection first, and the message must say so.
 */
class AccessDeniedMessageTest {

    private static ConnectorProperties.Database database() {
        ConnectorProperties.Database database = new ConnectorProperties.Database();
        database.setHost("127.0.0.1");
        database.setPort(3306);
        database.setUser("cdc_connector");
        database.setPassword("secret");
        return database;
    }

    private static StartupCheckException refused() {
        return DatabaseCheck.accessDenied(database(), "cdc.connector.database",
                new SQLException("Access denied for user 'cdc_connector'@'localhost' (using password: YES)", "28000", 1045));
    }

    @Test
    void aRefusedLoginNamesAnonymousAccountsAsACause() {
        assertThat(refused().getMessage())
                .contains("refused user 'cdc_connector'", "access denied", "wrong password")
                .contains("anonymous account such as ''@'localhost' matches this connection before 'cdc_connector'@'%'");
    }

    @Test
    void theFixGivesTheQueryThatFindsAnonymousAccountsAndHowToDropThem() {
        assertThat(refused().fix())
                .contains("cdc.connector.database.user and cdc.connector.database.password")
                .contains("CREATE USER 'cdc_connector'@'%'")
                .contains("SELECT user, host FROM mysql.user WHERE user = ''")
                .contains("DROP USER ''@'localhost'");
    }
}
