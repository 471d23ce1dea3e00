package dev.cdccache.coupon.generator;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import javax.sql.DataSource;

/**
 * Loads a realistic coupon data set quickly: multi-row {@code INSERT}s of {@value #ROWS_PER_STATEMENT}
 * rows, committed every few statements, on one connection with foreign-key and unique checks off for
 * the session (the generated data satisfies them by construction). 100,000 coupons with 500,000
 * attributes take seconds, not minutes.
 *
 * <p>Not thread-safe; one generation at a time per database.
 */
public class CouponDataGenerator {

    static final int ROWS_PER_STATEMENT = 1_000;
    private static final int STATEMENTS_PER_COMMIT = 20;
    private static final String[] REGIONS = {"Seoul", "Busan", "Incheon", "Daegu", "Daejeon", "Gwangju", "Ulsan",
        "Gyeonggi", "Gangwon", "Jeju", "Gyeongju", "Yeosu", "Sokcho", "Jeonju"};
    private static final String[] CATEGORIES = {"HOTEL", "MOTEL", "PENSION", "GUESTHOUSE", "RESORT", "CAMPING"};
    private static final String[] ATTRIBUTE_KEYS = {"channel", "membership", "room-type", "day-of-week", "stackable",
        "platform", "first-booking", "payment"};
    private static final String[][] ATTRIBUTE_VALUES = {
        {"app", "web", "all"}, {"none", "silver", "gold", "vip"}, {"standard", "deluxe", "suite", "any"},
        {"weekday", "weekend", "any"}, {"true", "false"}, {"ios", "android", "any"}, {"true", "false"},
        {"card", "point", "any"}};

    private final DataSource dataSource;

    public CouponDataGenerator(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** What a run wrote and how long it took. */
    public record Result(int places, int coupons, long attributes, Duration took) {
    }

    /**
     * Writes the plan's places, coupons, attributes and progress rows (no user coupons).
     *
     * @param replace empty the coupon tables first; without it a non-empty {@code coupon} or
     *                {@code place} table is an error rather than a silent mix of old and new data
     * @param today   the date validity windows are placed around
     */
    public Result generate(GenerationPlan plan, boolean replace, LocalDate today) throws SQLException {
        long start = System.nanoTime();
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            try (Statement session = connection.createStatement()) {
                session.execute("SET SESSION foreign_key_checks = 0, unique_checks = 0");
                if (replace) {
                    for (String table : List.of("user_coupon", "coupon_progress", "coupon_attribute", "coupon", "place")) {
                        session.execute("TRUNCATE TABLE " + table);
                    }
                } else {
                    requireEmpty(session);
                }
                connection.setAutoCommit(false);
                SplittableRandom random = new SplittableRandom(plan.seed());
                writePlaces(connection, plan);
                long attributes = writeCoupons(connection, plan, random, today);
                connection.commit();
                return new Result(plan.places(), plan.coupons(), attributes, Duration.ofNanos(System.nanoTime() - start));
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                try (Statement session = connection.createStatement()) {
                    connection.setAutoCommit(autoCommit);
                    session.execute("SET SESSION foreign_key_checks = 1, unique_checks = 1");
                }
            }
        }
    }

    private static void requireEmpty(Statement session) throws SQLException {
        try (ResultSet rs = session.executeQuery(
                "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM place LIMIT 1) p) + (SELECT COUNT(*) FROM (SELECT 1 FROM coupon LIMIT 1) c)")) {
            rs.next();
            if (rs.getInt(1) > 0) {
                throw new IllegalStateException("the coupon tables already hold data; generate with replace"
                        + " (--coupon.generate-replace=true) to empty them first");
            }
        }
    }

    private static void writePlaces(Connection connection, GenerationPlan plan) throws SQLException {
        try (MultiRowInsert insert = new MultiRowInsert(connection, "place", "id, name, region, category")) {
            for (int id = 1; id <= plan.places(); id++) {
                insert.add(id, "Place " + id, REGIONS[id % REGIONS.length], CATEGORIES[id % CATEGORIES.length]);
            }
        }
    }

    private static long writeCoupons(Connection connection, GenerationPlan plan, SplittableRandom random,
            LocalDate today) throws SQLException {
        long attributes = 0;
        try (MultiRowInsert coupons = new MultiRowInsert(connection, "coupon",
                "id, code, place_id, name, discount_type, discount_value, minimum_price, valid_from, valid_until, status, issue_limit");
             MultiRowInsert attributeRows = new MultiRowInsert(connection, "coupon_attribute",
                     "coupon_id, attribute_key, attribute_value");
             MultiRowInsert progress = new MultiRowInsert(connection, "coupon_progress",
                     "coupon_id, issued_count, used_count")) {
            for (int id = 1; id <= plan.coupons(); id++) {
                long placeId = 1 + (id - 1) % plan.places();
                boolean percentage = id % 3 == 0;
                BigDecimal value = percentage ? BigDecimal.valueOf(5 + random.nextInt(26))
                        : BigDecimal.valueOf(1_000L + 500L * random.nextInt(39));
                BigDecimal minimumPrice = BigDecimal.valueOf(10_000L * random.nextInt(11));
                LocalDate validFrom = today.minusDays(random.nextInt(61));
                LocalDate validUntil = validFrom.plusDays(30 + random.nextInt(91));
                int roll = random.nextInt(100);
                String status = roll < 90 ? "ACTIVE" : roll < 95 ? "PAUSED" : "ENDED";
                int limit = 100 + random.nextInt(9_901);
                coupons.add(id, String.format("CPN%08d", id), placeId,
                        (percentage ? value + "% off" : value + " off") + " at place " + placeId,
                        percentage ? "PERCENTAGE" : "FIXED_AMOUNT", value, minimumPrice, validFrom, validUntil,
                        status, limit);
                for (int a = 0; a < plan.attributesPerCoupon(); a++) {
                    String key;
                    String attributeValue;
                    if (a < ATTRIBUTE_KEYS.length) {
                        key = ATTRIBUTE_KEYS[a];
                        attributeValue = ATTRIBUTE_VALUES[a][random.nextInt(ATTRIBUTE_VALUES[a].length)];
                    } else {
                        key = "extra-" + a;
                        attributeValue = Integer.toString(random.nextInt(1_000));
                    }
                    attributeRows.add(id, key, attributeValue);
                    attributes++;
                }
                int issued = random.nextInt(limit / 2 + 1);
                progress.add(id, issued, random.nextInt(issued + 1));
            }
        }
        return attributes;
    }

    /**
     * Buffers rows and writes them {@value #ROWS_PER_STATEMENT} at a time in one multi-row INSERT,
     * committing every {@value #STATEMENTS_PER_COMMIT} statements. Closing writes the remainder.
     */
    private static final class MultiRowInsert implements AutoCloseable {
        private final Connection connection;
        private final String table;
        private final String columns;
        private final int width;
        private final List<Object> buffer = new ArrayList<>();
        private PreparedStatement fullStatement;
        private int statementsSinceCommit;

        MultiRowInsert(Connection connection, String table, String columns) {
            this.connection = connection;
            this.table = table;
            this.columns = columns;
            this.width = columns.split(",").length;
        }

        void add(Object... row) throws SQLException {
            for (Object value : row) {
                buffer.add(value);
            }
            if (buffer.size() == ROWS_PER_STATEMENT * width) {
                if (fullStatement == null) {
                    fullStatement = connection.prepareStatement(sql(ROWS_PER_STATEMENT));
                }
                execute(fullStatement);
            }
        }

        private void execute(PreparedStatement statement) throws SQLException {
            for (int i = 0; i < buffer.size(); i++) {
                statement.setObject(i + 1, buffer.get(i));
            }
            statement.executeUpdate();
            buffer.clear();
            if (++statementsSinceCommit == STATEMENTS_PER_COMMIT) {
                connection.commit();
                statementsSinceCommit = 0;
            }
        }

        private String sql(int rows) {
            String row = "(" + "?, ".repeat(width - 1) + "?)";
            StringBuilder sql = new StringBuilder("INSERT INTO ").append(table).append(" (").append(columns).append(") VALUES ");
            for (int i = 0; i < rows; i++) {
                sql.append(i == 0 ? "" : ", ").append(row);
            }
            return sql.toString();
        }

        @Override
        public void close() throws SQLException {
            try {
                if (!buffer.isEmpty()) {
                    try (PreparedStatement rest = connection.prepareStatement(sql(buffer.size() / width))) {
                        execute(rest);
                    }
                }
            } finally {
                if (fullStatement != null) {
                    fullStatement.close();
                }
            }
        }
    }
}
