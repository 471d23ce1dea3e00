package dev.cdccache.ticketorchestrator.ticket;

import java.time.LocalDate;
import java.util.List;

import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Reads season tickets straight from the database (they are not cached). */
@Repository
public class SeasonTicketRepository {

    private static final RowMapper<SeasonTicket> TICKET = (rs, n) -> new SeasonTicket(
            rs.getLong("id"), rs.getLong("parking_lot_id"), rs.getLong("category_id"), rs.getString("car_number"),
            rs.getObject("start_date", LocalDate.class), rs.getObject("end_date", LocalDate.class),
            TicketStatus.valueOf(rs.getString("status")), rs.getObject("car_exchange_id", Long.class));

    /**
     * The search: one lot, validity overlapping {@code [from, to]} (parameters: lot, {@code to}, {@code from},
     * limit, offset), by start date then id. Public so that a test can check its plan on a real database: it
     * must be served from an index in its own order, never by sorting every matching ticket of the lot.
     */
    public static final String SEARCH_SQL = "SELECT id, parking_lot_id, category_id, car_number, start_date,"
            + " end_date, status, car_exchange_id FROM season_ticket"
            + " WHERE parking_lot_id = ? AND start_date <= ? AND end_date >= ?"
            + " ORDER BY start_date, id LIMIT ? OFFSET ?";

    private final JdbcClient jdbc;

    /**
     * @param jdbc client over the service's data source
     */
    public SeasonTicketRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Tickets of one lot whose validity overlaps {@code [from, to]}, by start date then id, in one query.
     *
     * @param limit  how many rows to return at most (callers ask for one more than a page to learn whether
     *               another page follows, without a count query)
     * @param offset rows to skip
     */
    public List<SeasonTicket> findOverlapping(long parkingLotId, LocalDate from, LocalDate to, int limit, long offset) {
        return jdbc.sql(SEARCH_SQL)
                .params(parkingLotId, to, from, limit, offset)
                .query(TICKET)
                .list();
    }
}
