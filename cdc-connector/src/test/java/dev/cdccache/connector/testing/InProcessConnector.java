package dev.cdccache.connector.testing;

import static org.awaitility.Awaitility.await;

import dev.cdccache.connector.CdcConnectorApplication;
import dev.cdccache.connector.engine.ChangeEventEngine;
import dev.cdccache.connector.engine.EngineState;
import dev.cdccache.infra.LocalStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The connector application started in the test JVM against the shared local stack. */
public final class InProcessConnector implements AutoCloseable {

    private final ConfigurableApplicationContext context;

    private InProcessConnector(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /** Settings for a connector on {@code stack} as its connector user, on a random HTTP port. */
    public static Map<String, String> settings(LocalStack stack, String name, String topicPrefix, List<String> tables) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("server.port", "0");
        settings.put("cdc.connector.name", name);
        settings.put("cdc.connector.database.host", stack.mariaDb().host());
        settings.put("cdc.connector.database.port", Integer.toString(stack.mariaDb().port()));
        settings.put("cdc.connector.database.user", stack.mariaDb().connectorUser());
        settings.put("cdc.connector.database.password", stack.mariaDb().connectorPassword());
        settings.put("cdc.connector.kafka.bootstrap-servers", stack.kafka().bootstrapServers());
        settings.put("cdc.connector.topic-prefix", topicPrefix);
        for (int i = 0; i < tables.size(); i++) {
            settings.put("cdc.connector.tables[" + i + "]", tables.get(i));
        }
        return settings;
    }

    /** Starts the application (throws what start-up throws) without waiting for streaming. */
    public static InProcessConnector run(Map<String, String> settings) {
        List<String> args = new ArrayList<>();
        settings.forEach((k, v) -> args.add("--" + k + "=" + v));
        return new InProcessConnector(new SpringApplicationBuilder(CdcConnectorApplication.class)
                .run(args.toArray(String[]::new)));
    }

    /** Starts the application and waits until the engine streams the binlog. */
    public static InProcessConnector start(Map<String, String> settings) {
        InProcessConnector connector = run(settings);
        await().atMost(Duration.ofSeconds(60)).until(() -> connector.engine().state() == EngineState.STREAMING);
        return connector;
    }

    public ChangeEventEngine engine() {
        return context.getBean(ChangeEventEngine.class);
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
    }

    public ConfigurableApplicationContext context() {
        return context;
    }

    @Override
    public void close() {
        context.close();
    }
}
