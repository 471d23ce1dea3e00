package dev.cdccache.ticketorchestrator.reference;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;

import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Repository;

/**
 * Plain JDBC access to the reference tables. Reads by many ids are one {@code IN} query each; writes touch
 * only the database (caches learn about them from the change stream, whoever the writer is).
 */
@Repository
public class ReferenceRepository {

    private static final RowMapper<TicketCategory> CATEGORY = (rs, n) -> new TicketCategory(
            rs.getLong("id"), rs.getString("name"), rs.getBigDecimal("monthly_fee"), rs.getString("description"));
    private static final RowMapper<ParkingLot> PARKING_LOT = (rs, n) -> new ParkingLot(
            rs.getLong("id"), rs.getString("name"), rs.getString("address"), rs.getInt("capacity"),
            rs.getLong("place_id"));
    private static final RowMapper<CarExchangeDetail> CAR_EXCHANGE = ReferenceRepository::carExchange;

    private static final String CATEGORY_COLUMNS = "SELECT id, name, monthly_fee, description FROM ticket_category";
    private static final String PARKING_LOT_COLUMNS = "SELECT id, name, address, capacity, place_id FROM parking_lot";
    private static final String CAR_EXCHANGE_COLUMNS =
            "SELECT id, original_car_number, temporary_car_number, reason, valid_until FROM car_exchange_detail";

    private final JdbcClient jdbc;

    /**
     * @param jdbc client over the service's data source
     */
    public ReferenceRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** @return the category, or empty when there is no such row */
    public Optional<TicketCategory> findCategory(long id) {
        return jdbc.sql(CATEGORY_COLUMNS + " WHERE id = ?").param(id).query(CATEGORY).optional();
    }

    /** @return the categories that exist among {@code ids}, by id, in one query */
    public Map<Long, TicketCategory> findCategories(Collection<Long> ids) {
        return byId(ids, CATEGORY_COLUMNS, CATEGORY, TicketCategory::id);
    }

    /** @return every category, ordered by id */
    public List<TicketCategory> findAllCategories() {
        return jdbc.sql(CATEGORY_COLUMNS + " ORDER BY id").query(CATEGORY).list();
    }

    /** @return the parking lot, or empty when there is no such row */
    public Optional<ParkingLot> findParkingLot(long id) {
        return jdbc.sql(PARKING_LOT_COLUMNS + " WHERE id = ?").param(id).query(PARKING_LOT).optional();
    }

    /** @return the parking lots that exist among {@code ids}, by id, in one query */
    public Map<Long, ParkingLot> findParkingLots(Collection<Long> ids) {
        return byId(ids, PARKING_LOT_COLUMNS, PARKING_LOT, ParkingLot::id);
    }

    /** @return the car-exchange detail, or empty when there is no such row */
    public Optional<CarExchangeDetail> findCarExchange(long id) {
        return jdbc.sql(CAR_EXCHANGE_COLUMNS + " WHERE id = ?").param(id).query(CAR_EXCHANGE).optional();
    }

    /** @return the car-exchange details that exist among {@code ids}, by id, in one query */
    public Map<Long, CarExchangeDetail> findCarExchanges(Collection<Long> ids) {
        return byId(ids, CAR_EXCHANGE_COLUMNS, CAR_EXCHANGE, CarExchangeDetail::id);
    }

    /** Inserts a category and returns it with its generated id. */
    public TicketCategory insertCategory(String name, BigDecimal monthlyFee, String description) {
        GeneratedKeyHolder keys = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO ticket_category (name, monthly_fee, description) VALUES (?, ?, ?)")
                .params(name, monthlyFee, description)
                .update(keys, "id");
        return new TicketCategory(keys.getKey().longValue(), name, monthlyFee, description);
    }

    /** @return whether a row was updated */
    public boolean updateCategory(TicketCategory category) {
        return jdbc.sql("UPDATE ticket_category SET name = ?, monthly_fee = ?, description = ? WHERE id = ?")
                .params(category.name(), category.monthlyFee(), category.description(), category.id())
                .update() > 0;
    }

    /** @return whether a row was updated */
    public boolean updateParkingLot(ParkingLot lot) {
        return jdbc.sql("UPDATE parking_lot SET name = ?, address = ?, capacity = ?, place_id = ? WHERE id = ?")
                .params(lot.name(), lot.address(), lot.capacity(), lot.placeId(), lot.id())
                .update() > 0;
    }

    /** @return whether a row was updated */
    public boolean updateCarExchange(CarExchangeDetail exchange) {
        return jdbc.sql("UPDATE car_exchange_detail SET original_car_number = ?, temporary_car_number = ?,"
                        + " reason = ?, valid_until = ? WHERE id = ?")
                .params(exchange.originalCarNumber(), exchange.temporaryCarNumber(), exchange.reason(),
                        exchange.validUntil(), exchange.id())
                .update() > 0;
    }

    private <V> Map<Long, V> byId(Collection<Long> ids, String select, RowMapper<V> mapper,
                                  ToLongFunction<V> idOf) {
        Map<Long, V> found = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            return found;
        }
        for (V value : jdbc.sql(select + " WHERE id IN (:ids)").param("ids", List.copyOf(ids)).query(mapper).list()) {
            found.put(idOf.applyAsLong(value), value);
        }
        return found;
    }

    private static CarExchangeDetail carExchange(ResultSet rs, int row) throws SQLException {
        return new CarExchangeDetail(rs.getLong("id"), rs.getString("original_car_number"),
                rs.getString("temporary_car_number"), rs.getString("reason"),
                rs.getObject("valid_until", LocalDate.class));
    }
}
