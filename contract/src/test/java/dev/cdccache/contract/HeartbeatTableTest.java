package dev.cdccache.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HeartbeatTableTest {

    @Test
    void theTablesColumnReadsBackAsTheTablesItWasWrittenFrom() {
        String column = HeartbeatTable.tablesColumn(List.of("Coupon_DB.Coupon", " coupon_db.place ", "coupon_db.coupon"));
        assertThat(column).isEqualTo("coupon_db.coupon,coupon_db.place");
        assertThat(HeartbeatTable.tablesOf(column)).containsExactly("coupon_db.coupon", "coupon_db.place");
        assertThat(HeartbeatTable.tablesOf("")).isEmpty();
        assertThat(HeartbeatTable.tablesOf("a.b,, c.d ")).containsExactly("a.b", "c.d");
    }

    @Test
    void theStatementsNameEveryColumnOfTheRow() {
        String create = HeartbeatTable.createStatement("cdc_meta.heartbeat");
        assertThat(create).isEqualTo("CREATE TABLE cdc_meta.heartbeat (id VARCHAR(190) NOT NULL PRIMARY KEY,"
                + " ts DATETIME(6) NOT NULL, epoch VARCHAR(64) NOT NULL, tables TEXT NOT NULL) ENGINE=InnoDB");
        assertThat(HeartbeatTable.upsertStatement("m.hb")).isEqualTo("INSERT INTO m.hb (id, ts, epoch, tables)"
                + " VALUES (?, UTC_TIMESTAMP(6), ?, ?) ON DUPLICATE KEY UPDATE ts = VALUES(ts), epoch = VALUES(epoch),"
                + " tables = VALUES(tables)");
        assertThat(HeartbeatTable.migrateStatement("m.hb")).contains("MODIFY id VARCHAR(190) NOT NULL",
                "epoch VARCHAR(64) NOT NULL", "tables TEXT NOT NULL");
    }

    @Test
    void inlinedValuesCannotEndTheirStringLiteral() {
        assertThat(HeartbeatTable.literalUpsertStatement("m.hb", "it's", "e\\1", "a.b"))
                .contains("VALUES ('it''s', UTC_TIMESTAMP(6), 'e\\\\1', 'a.b')");
    }

    @Test
    void theDefaultHeartbeatTopicFollowsTheTopicNamingOfEveryTable() {
        assertThat(ChangeTopics.of("cdc", "coupon_db", "coupon")).isEqualTo("cdc.coupon_db.coupon");
        assertThat(ChangeTopics.of("shop", "coupon_db.coupon")).isEqualTo("shop.coupon_db.coupon");
        assertThat(ChangeTopics.heartbeat("shop")).isEqualTo("shop.cdc_meta.heartbeat");
        assertThat(ConnectorHeader.connectorName(ConnectorHeader.value("cönnector-1"))).isEqualTo("cönnector-1");
    }
}
