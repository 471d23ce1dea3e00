package dev.cdccache.connector.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.config.CapturedTable;
import org.junit.jupiter.api.Test;

class GrantsTest {

    @Test
    void readsMariaDbGrantLinesByScope() {
        DatabaseCheck.Grants grants = new DatabaseCheck.Grants();
        grants.add("GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, BINLOG MONITOR, LOCK TABLES ON *.* TO `cdc`@`%` IDENTIFIED BY PASSWORD '*ABC'");
        grants.add("GRANT INSERT, UPDATE ON `cdc_meta`.`heartbeat` TO `cdc`@`%`");

        assertThat(grants.hasGlobal("REPLICATION SLAVE")).isTrue();
        assertThat(grants.hasGlobal("REPLICATION CLIENT", "BINLOG MONITOR")).isTrue();
        assertThat(grants.hasOn(CapturedTable.parse("shop.item"), "SELECT")).isTrue();
        assertThat(grants.hasOn(CapturedTable.parse("cdc_meta.heartbeat"), "UPDATE")).isTrue();
        assertThat(grants.hasOn(CapturedTable.parse("shop.item"), "UPDATE")).isFalse();
    }

    @Test
    void databaseLevelAndAllPrivilegesCount() {
        DatabaseCheck.Grants grants = new DatabaseCheck.Grants();
        grants.add("GRANT USAGE ON *.* TO `app`@`%`");
        grants.add("GRANT ALL PRIVILEGES ON `shop`.* TO `app`@`%`");

        assertThat(grants.hasGlobal("REPLICATION SLAVE")).isFalse();
        assertThat(grants.hasOn(CapturedTable.parse("shop.item"), "SELECT")).isTrue();
        assertThat(grants.hasOn(CapturedTable.parse("other.item"), "SELECT")).isFalse();
    }

    @Test
    void columnGrantsDoNotCoverTheTable() {
        DatabaseCheck.Grants grants = new DatabaseCheck.Grants();
        grants.add("GRANT SELECT (id) ON `shop`.`item` TO `app`@`%`");
        assertThat(grants.hasOn(CapturedTable.parse("shop.item"), "SELECT")).isFalse();
    }
}
