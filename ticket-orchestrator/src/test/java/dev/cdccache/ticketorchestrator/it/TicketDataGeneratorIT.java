package dev.cdccache.ticketorchestrator.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.mariadb.jdbc.MariaDbDataSource;

import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.ticketorchestrator.generator.GeneratedData;
import dev.cdccache.ticketorchestrator.generator.GeneratorProperties;
import dev.cdccache.ticketorchestrator.generator.TicketDataGenerator;

/** The generator against the real schema: the configured volume, and the same data for the same seed. */
@ExtendWith(TicketStackExtension.class)
class TicketDataGeneratorIT {

    private static final GeneratorProperties SETTINGS =
            new GeneratorProperties(false, 4, 1_000, 8, 0.3, 11, LocalDate.of(2026, 3, 1), 42);

    @Test
    void generatesTheConfiguredVolumeAndTheSameDataForTheSameSeed(TicketStack stack) throws SQLException {
        DataSource first = freshDatabase(stack.mariaDb(), "ticket_gen_a");
        DataSource second = freshDatabase(stack.mariaDb(), "ticket_gen_b");

        GeneratedData data = new TicketDataGenerator(SETTINGS).generate(first);
        new TicketDataGenerator(SETTINGS).generate(second);

        assertThat(data.parkingLotIds()).hasSize(4);
        assertThat(data.categoryIds()).hasSize(8);
        assertThat(data.tickets()).isEqualTo(4_000);
        assertThat(data.carExchanges()).isBetween(1_000, 1_400);
        assertThat(rows(first, "SELECT parking_lot_id, COUNT(*) FROM season_ticket GROUP BY parking_lot_id"))
                .hasSize(4).allSatisfy(row -> assertThat(row).endsWith("|1000"));
        assertThat(rows(first, "SELECT place_id FROM parking_lot ORDER BY id"))
                .containsExactly("11", "12", "13", "14");
        assertThat(rows(first, "SELECT COUNT(*) FROM season_ticket WHERE end_date < start_date")).containsExactly("0");
        String tickets = "SELECT id, parking_lot_id, category_id, car_number, start_date, end_date, status,"
                + " car_exchange_id FROM season_ticket ORDER BY id";
        assertThat(rows(second, tickets)).isEqualTo(rows(first, tickets));
    }

    private static DataSource freshDatabase(MariaDbServer db, String name) throws SQLException {
        db.execute(null, "DROP DATABASE IF EXISTS " + name);
        db.createDatabase(name);
        MariaDbDataSource dataSource = new MariaDbDataSource(db.jdbcUrl(name));
        dataSource.setUser(db.adminUser());
        dataSource.setPassword(db.adminPassword());
        Flyway.configure().dataSource(dataSource).locations("classpath:db/migration").load().migrate();
        return dataSource;
    }

    private static List<String> rows(DataSource dataSource, String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= columns; i++) {
                    row.append(i > 1 ? "|" : "").append(rs.getString(i));
                }
                rows.add(row.toString());
            }
        }
        return rows;
    }
}
