package dev.cdccache.connector;

import dev.cdccache.connector.check.ConnectorCheckCommand;
import dev.cdccache.connector.continuity.StoppedAtEvent;
import dev.cdccache.connector.engine.EngineFailedEvent;
import dev.cdccache.connector.export.ConnectConfigExporter;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The CDC connector: reads the MariaDB/MySQL binlog with the Debezium embedded engine and
 * publishes every change of the captured tables to {@code <topic-prefix>.<database>.<table>}.
 *
 * <p>{@code check --config <file>} verifies the settings against the database and Kafka without streaming
 * ({@link ConnectorCheckCommand}).
 *
 * <p>Exit codes: 0 after a normal shutdown or an export, 1 when start-up fails (a message says
 * what to fix), 3 when the engine stops by itself at run time (the supervisor restarts the
 * process, which resumes from the stored offsets).
 */
@SpringBootApplication
public class CdcConnectorApplication {

    /**
     * Runs the connector; with {@code check --config <file>} checks its settings; with
     * {@code --cdc.connector.export-connect-config} prints the Kafka Connect JSON.
     */
    public static void main(String[] args) {
        if (ConnectorCheckCommand.requestedBy(args)) {
            System.exit(ConnectorCheckCommand.run(args, System.out));
        }
        boolean export = ConnectConfigExporter.requestedBy(args);
        SpringApplication application = new SpringApplication(CdcConnectorApplication.class);
        if (export) {
            // stdout carries the JSON: no web server, no logs below ERROR
            application.setWebApplicationType(WebApplicationType.NONE);
            application.setDefaultProperties(Map.of("logging.level.root", "ERROR"));
        }
        application.addListeners((ApplicationListener<EngineFailedEvent>) event -> {
            // Not on the engine's thread: System.exit runs the shutdown hook, which waits for that thread.
            // 4: stopped at an event it cannot pass until an operator acts; a restart as it is stops there again
            int code = StoppedAtEvent.isCauseOf(event.cause()) ? 4 : 3;
            Thread exit = new Thread(() -> System.exit(code), "cdc-connector-exit");
            exit.start();
        });
        ConfigurableApplicationContext context;
        try {
            context = application.run(args);
        } catch (RuntimeException e) {
            System.exit(1); // the failure analysis has been logged
            return;
        }
        // also when the flag came from a YAML file rather than the command line
        if (export || context.getEnvironment().getProperty("cdc.connector.export-connect-config", Boolean.class, false)) {
            System.exit(SpringApplication.exit(context));
        }
    }
}
