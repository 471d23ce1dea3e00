package dev.cdccache.ticketorchestrator.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mariadb.jdbc.MariaDbDataSource;

import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.ticketorchestrator.generator.GeneratedData;
import dev.cdccache.ticketorchestrator.generator.GeneratorProperties;
import dev.cdccache.ticketorchestrator.generator.TicketDataGenerator;
import dev.cdccache.ticketorchestrator.ticket.SeasonTicketRepository;

/**
 * The plan of the ticket search on the real MariaDB, over a database of its own filled by the service's
 * generator at the size the service generates by default (5 lots x 5,000 tickets): every search must be
 * served by an index range in the query's own order, so MariaDB stops reading after the requested rows.
 * The data is written under the first schema version and then migrated, as an existing database is.
 * A filesort means it read and sorted every matching ticket of the lot to return one page; a full scan
 * reads every lot.
 *
 * <p>{@code ANALYZE} runs the query and reports the rows it actually read from the table ({@code r_rows}):
 * at most offset + limit proves that the index also filters the end of the period (index condition), so
 * tickets that ended before the period are skipped without reading their rows.
 */
@ExtendWith(LocalStackExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TicketSearchQueryPlanIT {

    private static final String DATABASE = "ticket_plan";
    private static final LocalDate BASE_DATE = LocalDate.of(2026, 6, 15);

    private DataSource dataSource;
    private long lotId;

    @BeforeAll
    void generateTheDefaultVolume(MariaDbServer db) throws SQLException {
        db.execute(null, "DROP DATABASE IF EXISTS " + DATABASE);
        db.createDatabase(DATABASE);
        MariaDbDataSource admin = new MariaDbDataSource(db.jdbcUrl(DATABASE));
        admin.setUser(db.adminUser());
        admin.setPassword(db.adminPassword());
        // An existing database: the first schema version, filled, then upgraded by the later migrations (the
        // index change must work on a populated table, as it will in production).
        Flyway.configure().dataSource(admin).locations("classpath:db/migration").target("1").load().migrate();
        // the service's default volume and shape; a fixed base date keeps the periods below meaningful
        GeneratedData data = new TicketDataGenerator(
                new GeneratorProperties(false, 5, 5_000, 8, 0.3, 1, BASE_DATE, 3)).generate(admin);
        Flyway.configure().dataSource(admin).locations("classpath:db/migration").load().migrate();
        // statistics as a long-running database has them, not as left by the bulk insert
        db.execute(DATABASE, "ANALYZE TABLE season_ticket");
        dataSource = admin;
        lotId = data.parkingLotIds().get(2);
    }

    @ParameterizedTest(name = "{0}..{1}, offset {3}, limit {2}")
    @CsvSource({
            // the load test's search: a period inside the current month, first page, sizes 10 to 50 (+1 row)
            "2026-06-01, 2026-06-30, 51, 0",
            "2026-06-10, 2026-06-12, 11, 0",
            // a later page of the same month
            "2026-06-01, 2026-06-30, 11, 40",
            // a past month, where most tickets that started before it have ended
            "2026-01-01, 2026-01-31, 11, 0",
            // a month no ticket reaches: the index answers it without reading a ticket row
            "2027-03-01, 2027-03-31, 51, 0"})
    void searchReadsOnlyItsPageThroughAnIndexInQueryOrder(LocalDate from, LocalDate to, int limit, long offset)
            throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement analyze = connection.prepareStatement("ANALYZE " + SeasonTicketRepository.SEARCH_SQL)) {
            analyze.setLong(1, lotId);
            analyze.setObject(2, to);
            analyze.setObject(3, from);
            analyze.setInt(4, limit);
            analyze.setLong(5, offset);
            try (ResultSet plan = analyze.executeQuery()) {
                assertThat(plan.next()).as("a plan row").isTrue();
                String access = plan.getString("type");
                String key = plan.getString("key");
                String extra = String.valueOf(plan.getString("Extra"));
                double rowsRead = plan.getDouble("r_rows");
                String described = "type=" + access + " key=" + key + " r_rows=" + rowsRead + " Extra=" + extra;

                assertThat(access).as("access (not a full table or index scan): %s", described)
                        .isIn("ref", "range");
                assertThat(key).as("an index is used: %s", described).isNotNull();
                assertThat(extra).as("no sort of the matching tickets: %s", described)
                        .doesNotContain("filesort").doesNotContain("temporary");
                assertThat(rowsRead).as("ticket rows read for one page: %s", described)
                        .isLessThanOrEqualTo(offset + limit);
                assertThat(plan.next()).as("one table, one plan row").isFalse();
            }
        }
    }

    /** Sanity check of the data set: the month of the base date holds thousands of tickets of the lot. */
    @Test
    void theSearchedMonthHoldsAFewThousandTicketsOfTheLot() throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM season_ticket WHERE parking_lot_id = "
                     + lotId + " AND start_date <= '2026-06-30' AND end_date >= '2026-06-01'")) {
            assertThat(count.next()).isTrue();
            assertThat(count.getLong(1)).isBetween(1_000L, 5_000L);
        }
    }
}
