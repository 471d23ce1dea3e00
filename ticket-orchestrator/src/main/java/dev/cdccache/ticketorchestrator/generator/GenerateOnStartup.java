package dev.cdccache.ticketorchestrator.generator;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Fills an empty ticket database at start-up when {@code ticket.generator.enabled=true} (local run, load
 * tests). A database that already has tickets is left alone, so restarts and a second instance do not
 * duplicate data.
 */
@Component
@ConditionalOnProperty(prefix = "ticket.generator", name = "enabled", havingValue = "true")
class GenerateOnStartup implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(GenerateOnStartup.class);

    private final DataSource dataSource;
    private final GeneratorProperties settings;

    GenerateOnStartup(DataSource dataSource, GeneratorProperties settings) {
        this.dataSource = dataSource;
        this.settings = settings;
    }

    @Override
    public void run(ApplicationArguments args) throws SQLException {
        // a named lock (held by this one connection) keeps instances starting together from both generating
        try (Connection lock = dataSource.getConnection(); Statement statement = lock.createStatement()) {
            statement.execute("SELECT GET_LOCK('ticket-generator', 120)");
            try {
                long existing;
                try (ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM season_ticket")) {
                    count.next();
                    existing = count.getLong(1);
                }
                if (existing > 0) {
                    log.info("Ticket database already has {} tickets; not generating", existing);
                    return;
                }
                long started = System.nanoTime();
                GeneratedData data = new TicketDataGenerator(settings).generate(dataSource);
                log.info("Generated {} parking lots, {} categories, {} car exchanges, {} tickets in {} ms",
                        data.parkingLotIds().size(), data.categoryIds().size(), data.carExchanges(), data.tickets(),
                        (System.nanoTime() - started) / 1_000_000);
            } finally {
                statement.execute("SELECT RELEASE_LOCK('ticket-generator')");
            }
        }
    }
}
