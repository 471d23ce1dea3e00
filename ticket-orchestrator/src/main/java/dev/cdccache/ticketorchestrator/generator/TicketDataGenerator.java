package dev.cdccache.ticketorchestrator.generator;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import javax.sql.DataSource;

/**
 * Inserts a realistic data set: parking lots (each mapped to a coupon-service place), categories, and per
 * lot a few thousand season tickets whose periods spread around a base date, some with a car exchange.
 * Deterministic for a given seed. Plain JDBC with batched inserts, so it works against any data source
 * (the service's own at start-up, a test's admin connection).
 */
public final class TicketDataGenerator {

    private static final String[] CATEGORY_NAMES = {"Monthly", "Weekday", "Night", "Weekend", "Resident",
            "Compact car", "Electric car", "Business"};
    private static final String[] DISTRICTS = {"Gangnam", "Mapo", "Jongno", "Songpa", "Yongsan", "Seocho",
            "Seongsu", "Yeouido"};
    private static final String[] EXCHANGE_REASONS = {"repair", "accident", "rental while on service",
            "family car", "inspection"};
    private static final int BATCH = 500;

    private final GeneratorProperties settings;

    /**
     * @param settings volume and shape
     */
    public TicketDataGenerator(GeneratorProperties settings) {
        if (settings.parkingLots() < 1 || settings.ticketsPerLot() < 0 || settings.categories() < 1
                || settings.carExchangeShare() < 0 || settings.carExchangeShare() > 1) {
            throw new IllegalArgumentException("ticket.generator needs parking-lots >= 1, tickets-per-lot >= 0,"
                    + " categories >= 1 and car-exchange-share in [0, 1]; got " + settings);
        }
        this.settings = settings;
    }

    /**
     * Inserts the data set in one transaction.
     *
     * @param dataSource the ticket database
     * @return what was inserted
     */
    public GeneratedData generate(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                GeneratedData data = generate(connection);
                connection.commit();
                return data;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Generating ticket data failed: " + e.getMessage(), e);
        }
    }

    private GeneratedData generate(Connection connection) throws SQLException {
        Random random = new Random(settings.seed());
        LocalDate base = settings.effectiveBaseDate();

        List<Long> categoryIds = new ArrayList<>();
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO ticket_category (name, monthly_fee, description) VALUES (?, ?, ?)",
                Statement.RETURN_GENERATED_KEYS)) {
            for (int i = 0; i < settings.categories(); i++) {
                String name = CATEGORY_NAMES[i % CATEGORY_NAMES.length]
                        + (i < CATEGORY_NAMES.length ? "" : " " + (i / CATEGORY_NAMES.length + 1));
                insert.setString(1, name);
                insert.setBigDecimal(2, BigDecimal.valueOf(50_000 + 10_000L * random.nextInt(15)));
                insert.setString(3, name + " season ticket");
                insert.executeUpdate();
                categoryIds.add(generatedKey(insert));
            }
        }

        List<Long> lotIds = new ArrayList<>();
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO parking_lot (name, address, capacity, place_id) VALUES (?, ?, ?, ?)",
                Statement.RETURN_GENERATED_KEYS)) {
            for (int i = 0; i < settings.parkingLots(); i++) {
                String district = DISTRICTS[i % DISTRICTS.length];
                insert.setString(1, district + " Parking " + (i + 1));
                insert.setString(2, (10 + random.nextInt(300)) + " " + district + "-ro, Seoul");
                insert.setInt(3, 200 + random.nextInt(800));
                insert.setLong(4, settings.firstPlaceId() + i);
                insert.executeUpdate();
                lotIds.add(generatedKey(insert));
            }
        }

        int tickets = 0;
        int exchanges = 0;
        try (PreparedStatement exchange = connection.prepareStatement(
                "INSERT INTO car_exchange_detail (original_car_number, temporary_car_number, reason, valid_until)"
                        + " VALUES (?, ?, ?, ?)", Statement.RETURN_GENERATED_KEYS);
             PreparedStatement ticket = connection.prepareStatement(
                     "INSERT INTO season_ticket (parking_lot_id, category_id, car_number, start_date, end_date,"
                             + " status, car_exchange_id) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            for (long lotId : lotIds) {
                for (int i = 0; i < settings.ticketsPerLot(); i++) {
                    String carNumber = carNumber(random);
                    LocalDate start = base.minusDays(180).plusDays(random.nextInt(211));
                    int months = new int[] {1, 1, 1, 3, 3, 6}[random.nextInt(6)];
                    LocalDate end = start.plusMonths(months).minusDays(1);
                    Long exchangeId = null;
                    if (random.nextDouble() < settings.carExchangeShare()) {
                        exchange.setString(1, carNumber);
                        exchange.setString(2, carNumber(random));
                        exchange.setString(3, EXCHANGE_REASONS[random.nextInt(EXCHANGE_REASONS.length)]);
                        exchange.setDate(4, Date.valueOf(end.isBefore(base) ? end : base.plusDays(random.nextInt(30))));
                        exchange.executeUpdate();
                        exchangeId = generatedKey(exchange);
                        exchanges++;
                    }
                    ticket.setLong(1, lotId);
                    ticket.setLong(2, categoryIds.get(random.nextInt(categoryIds.size())));
                    ticket.setString(3, carNumber);
                    ticket.setDate(4, Date.valueOf(start));
                    ticket.setDate(5, Date.valueOf(end));
                    int roll = random.nextInt(100);
                    ticket.setString(6, roll < 85 ? "ACTIVE" : roll < 95 ? "SUSPENDED" : "CANCELLED");
                    if (exchangeId == null) {
                        ticket.setNull(7, Types.BIGINT);
                    } else {
                        ticket.setLong(7, exchangeId);
                    }
                    ticket.addBatch();
                    if (++tickets % BATCH == 0) {
                        ticket.executeBatch();
                    }
                }
            }
            ticket.executeBatch();
        }
        return new GeneratedData(List.copyOf(lotIds), List.copyOf(categoryIds), exchanges, tickets);
    }

    private static String carNumber(Random random) {
        // Korean plates look like "12가3456"; ASCII keeps the data easy to grep and type in a terminal
        return String.format("%02d%c%04d", 10 + random.nextInt(90), (char) ('A' + random.nextInt(26)),
                random.nextInt(10_000));
    }

    private static long generatedKey(Statement statement) throws SQLException {
        try (ResultSet keys = statement.getGeneratedKeys()) {
            if (!keys.next()) {
                throw new SQLException("no generated key returned");
            }
            return keys.getLong(1);
        }
    }
}
