package dev.cdccache.connector.startup;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The servers' rules for row changes, as the start-up check evaluates them: a table is skipped if either case says so. */
class ReplicationFiltersTest {

    private static ReplicationFilters replica(String doDb, String ignoreDb, String doTable, String ignoreTable,
            String wildDo, String wildIgnore) {
        return ReplicationFilters.replica(doDb, ignoreDb, doTable, ignoreTable, wildDo, wildIgnore);
    }

    @Test
    void noFiltersSkipNothing() {
        ReplicationFilters none = replica("", null, " ", "", "", "");
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.skipping("shop", "coupon")).isEmpty();
    }

    @Test
    void anIgnoredDatabaseSkipsItsTablesOnly() {
        ReplicationFilters filters = ReplicationFilters.binlog("", "audit, shop");
        assertThat(filters.skipping("shop", "coupon")).hasValueSatisfying(rule -> assertThat(rule).contains("ignore-db"));
        assertThat(filters.skipping("cdc_meta", "heartbeat")).isEmpty();
    }

    @Test
    void aDoDatabaseListSkipsEveryOtherDatabaseAndOutranksIgnoreDb() {
        ReplicationFilters filters = ReplicationFilters.binlog("shop", "shop");
        assertThat(filters.skipping("shop", "coupon")).isEmpty();
        assertThat(filters.skipping("cdc_meta", "heartbeat")).hasValueSatisfying(rule -> assertThat(rule)
                .contains("do-db shop does not name cdc_meta"));
    }

    @Test
    void aDoTableRuleSkipsEveryTableItDoesNotName() {
        ReplicationFilters filters = replica("", "", "shop.coupon", "", "", "");
        assertThat(filters.skipping("shop", "coupon")).isEmpty();
        assertThat(filters.skipping("shop", "place")).hasValueSatisfying(rule -> assertThat(rule)
                .contains("names other tables only"));
    }

    @Test
    void ignoreTableAndWildIgnoreTableSkipWhatTheyMatch() {
        ReplicationFilters filters = replica("", "", "", "shop.place", "", "shop.coupon\\_%");
        assertThat(filters.skipping("shop", "place")).hasValueSatisfying(rule -> assertThat(rule).contains("ignore-table"));
        assertThat(filters.skipping("shop", "coupon_attribute")).hasValueSatisfying(rule -> assertThat(rule)
                .contains("wild-ignore-table shop.coupon\\_%"));
        assertThat(filters.skipping("shop", "coupon")).as("the escaped _ is a literal underscore").isEmpty();
        assertThat(filters.skipping("shop", "couponXattribute")).isEmpty();
    }

    @Test
    void aDoTableMatchOutranksALaterIgnoreRule() {
        ReplicationFilters filters = replica("", "", "shop.coupon", "", "", "shop.%");
        assertThat(filters.skipping("shop", "coupon")).isEmpty();
        assertThat(filters.skipping("shop", "place")).isPresent();
    }

    @Test
    void wildDoTablePatternsUseLikesWildcards() {
        ReplicationFilters filters = replica("", "", "", "", "sh_p.%", "");
        assertThat(filters.skipping("shop", "anything")).isEmpty();
        assertThat(filters.skipping("shoop", "anything")).isPresent();
    }

    @Test
    void namesAreReadAsShownAndFoldedWithoutSpacesCaseOrAccents() {
        // a stored name may keep a trailing space: the server then matches nothing, so a do-list skips the table
        assertThat(ReplicationFilters.binlog("shop ,cdc_meta", "").skipping("shop", "coupon")).isPresent();
        // MariaDB's table rules compare without case or accents
        assertThat(replica("", "", "", "shop.cafe", "", "").skipping("shop", "caf\u00e9")).isPresent();
        assertThat(replica("", "", "", "", "", "shop.CAF%").skipping("shop", "caf\u00e9s")).isPresent();
    }

    @Test
    void databaseRulesAreToldApartFromTableRules() {
        assertThat(ReplicationFilters.binlog("", "audit").hasDatabaseRules()).isTrue();
        assertThat(replica("", "", "", "", "", "audit.%").hasDatabaseRules()).isFalse();
    }

    @Test
    void aTableIsSkippedIfEitherCaseRuleSkipsIt() {
        // lower_case_table_names decides on the server; the check refuses if either reading skips the table
        assertThat(ReplicationFilters.binlog("", "Shop").skipping("shop", "coupon")).isPresent();
        assertThat(ReplicationFilters.binlog("Shop", "").skipping("shop", "coupon")).isPresent();
        assertThat(ReplicationFilters.binlog("shop", "").skipping("shop", "coupon")).isEmpty();
    }
}
