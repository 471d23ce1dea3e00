package dev.cdccache.coupon.testing;

import dev.cdccache.infra.LocalStack;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** Rows with known values, written with plain SQL as an outside writer would. */
public final class TestData {

    private final LocalStack stack;
    private final String database;

    public TestData(LocalStack stack, String database) {
        this.stack = stack;
        this.database = database;
    }

    public static LocalDate today() {
        return LocalDate.now(ZoneOffset.UTC);
    }

    public void place(long id) {
        TestDatabases.sql(stack, database, "INSERT INTO place (id, name, region, category) VALUES ("
                + id + ", 'Test place " + id + "', 'Seoul', 'HOTEL')");
    }

    /**
     * An active FIXED_AMOUNT coupon (1000 off, minimum price 10000, valid yesterday to +30 days) with two
     * attributes and a progress row.
     */
    public void coupon(long id, String code, long placeId, int issueLimit) {
        coupon(id, code, placeId, issueLimit, "ACTIVE", true);
    }

    public void coupon(long id, String code, long placeId, int issueLimit, String status, boolean progressRow) {
        List<String> statements = new ArrayList<>();
        statements.add("INSERT INTO coupon (id, code, place_id, name, discount_type, discount_value, minimum_price,"
                + " valid_from, valid_until, status, issue_limit) VALUES (" + id + ", '" + code + "', " + placeId
                + ", 'Coupon " + id + "', 'FIXED_AMOUNT', 1000.00, 10000.00, '" + today().minusDays(1) + "', '"
                + today().plusDays(30) + "', '" + status + "', " + issueLimit + ")");
        statements.add("INSERT INTO coupon_attribute (coupon_id, attribute_key, attribute_value) VALUES ("
                + id + ", 'channel', 'app'), (" + id + ", 'membership', 'gold')");
        if (progressRow) {
            statements.add("INSERT INTO coupon_progress (coupon_id, issued_count, used_count) VALUES (" + id + ", 0, 0)");
        }
        TestDatabases.sql(stack, database, statements.toArray(String[]::new));
    }

    public long count(String table, String where) {
        return TestDatabases.queryLong(stack, database, "SELECT COUNT(*) FROM " + table + " WHERE " + where);
    }

    public long issuedCount(long couponId) {
        return TestDatabases.queryLong(stack, database,
                "SELECT COALESCE(MAX(issued_count), 0) FROM coupon_progress WHERE coupon_id = " + couponId);
    }
}
