package dev.cdccache.connector.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cdccache.connector.config.CapturedTable;
import dev.cdccache.connector.config.ConnectorProperties;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Masking, hashing or truncating a column that cache keys are built from is refused; other columns stay maskable. */
class KeyColumnCheckTest {

    private static final List<CapturedTable> TABLES = List.of(new CapturedTable("shop", "coupon"), new CapturedTable("cdc_meta", "heartbeat"));
    /** What the database reports, plus a configured secondary key. */
    private static final Map<String, String> KEYS = Map.of("shop.coupon.id", "primary key", "cdc_meta.heartbeat.id", "primary key",
            "shop.coupon.code", "cdc.connector.columns.cache-keys");

    private static ConnectorProperties properties() {
        ConnectorProperties p = new ConnectorProperties();
        p.setTables(List.of("shop.coupon"));
        p.getColumns().setCacheKeys(List.of("shop.coupon.code"));
        return p;
    }

    private static StartupCheckException refused(ConnectorProperties p) {
        KeyColumnCheck check = KeyColumnCheck.of(p, TABLES);
        assertThat(check.hasRewrites()).isTrue();
        StartupCheckException failure = catchThrowableOfType(StartupCheckException.class, () -> check.verify(KEYS));
        assertThat(failure).as("must be refused").isNotNull();
        assertThat(failure.getMessage()).contains("keep serving the real key's entry");
        assertThat(failure.fix()).contains("cdc.connector.columns.exclude");
        return failure;
    }

    @Test
    void maskingAPrimaryKeyColumnIsRefused() {
        ConnectorProperties p = properties();
        p.getDebezium().put("column.mask.with.8.chars", "shop.coupon.title,shop\\.coupon\\.i.");

        assertThat(refused(p).getMessage()).contains("cdc.connector.debezium.column.mask.with.8.chars masks the key column(s)"
                + " shop.coupon.id (primary key)").doesNotContain("title");
    }

    @Test
    void hashingAPrimaryKeyColumnIsRefusedWhateverTheCase() {
        ConnectorProperties p = properties();
        p.getDebezium().put("column.mask.hash.SHA-256.with.salt.pepper", "SHOP.COUPON.ID");

        assertThat(refused(p).getMessage()).contains("column.mask.hash.SHA-256.with.salt.pepper hashes the key column(s) shop.coupon.id");
    }

    @Test
    void truncatingAConfiguredCacheKeyColumnIsRefused() {
        ConnectorProperties p = properties();
        p.getDebezium().put("column.truncate.to.4.chars", "shop.coupon.code");

        assertThat(refused(p).getMessage()).contains("column.truncate.to.4.chars truncates the key column(s) shop.coupon.code"
                + " (cdc.connector.columns.cache-keys)");
    }

    @Test
    void aPatternMatchingEveryColumnHitsTheHeartbeatKeyToo() {
        ConnectorProperties p = properties();
        p.getDebezium().put("column.mask.with.4.chars", ".*");

        assertThat(refused(p).getMessage()).contains("cdc_meta.heartbeat.id").contains("shop.coupon.id");
    }

    @Test
    void theProjectsOwnColumnMaskOnAKeyColumnIsRefused() {
        ConnectorProperties p = properties();
        p.getColumns().setMask(List.of("shop.coupon.id"));

        assertThat(refused(p).getMessage()).contains("cdc.connector.columns.mask masks the key column(s) shop.coupon.id");
    }

    @Test
    void rewritingColumnsNoKeyIsBuiltFromStaysAllowed() {
        ConnectorProperties p = properties();
        p.getColumns().setMask(List.of("shop.coupon.title"));
        p.getDebezium().put("column.mask.hash.SHA-256.with.salt.pepper", "shop\\.coupon\\.owner_.*");
        p.getDebezium().put("column.truncate.to.10.chars", "shop.coupon.description");

        assertThatCode(() -> KeyColumnCheck.of(p, TABLES).verify(KEYS)).doesNotThrowAnyException();
    }

    @Test
    void withoutRewritesThereIsNothingToCheck() {
        assertThat(KeyColumnCheck.of(properties(), TABLES).hasRewrites()).isFalse();
    }

    @Test
    void anInvalidPatternFailsNamingTheSetting() {
        ConnectorProperties p = properties();
        p.getDebezium().put("column.mask.with.8.chars", "shop.coupon.(title");

        StartupCheckException failure = catchThrowableOfType(StartupCheckException.class, () -> KeyColumnCheck.of(p, TABLES));
        assertThat(failure.getMessage()).contains("cdc.connector.debezium.column.mask.with.8.chars is not a list of regular expressions");
    }

    private static StartupCheckException leftOut(ConnectorProperties p) {
        KeyColumnCheck check = KeyColumnCheck.of(p, TABLES);
        assertThat(check.hasRewrites()).as("a projection is something to check").isTrue();
        StartupCheckException failure = catchThrowableOfType(StartupCheckException.class, () -> check.verify(KEYS));
        assertThat(failure).as("must be refused").isNotNull();
        return failure;
    }

    @Test
    void aProjectionWithoutThePrimaryKeyIsRefusedNamingTheColumn() {
        ConnectorProperties p = properties();
        p.getColumns().setInclude(List.of("shop.coupon.code", "shop.coupon.place_id"));

        StartupCheckException failure = leftOut(p);
        assertThat(failure.getMessage()).contains("cdc.connector.columns.include leaves the key column(s) shop.coupon.id"
                + " (primary key) out of the events").doesNotContain("shop.coupon.code");
        assertThat(failure.fix()).contains("Add these columns to cdc.connector.columns.include");
    }

    @Test
    void aProjectionWithoutADeclaredCacheKeyColumnIsRefused() {
        ConnectorProperties p = properties();
        p.getColumns().setInclude(List.of("shop.coupon.ID"));

        assertThat(leftOut(p).getMessage()).contains("shop.coupon.code (cdc.connector.columns.cache-keys)")
                .doesNotContain("shop.coupon.id (primary key)");
    }

    @Test
    void excludingAPrimaryKeyColumnIsRefused() {
        ConnectorProperties p = properties();
        p.getColumns().setExclude(List.of("shop.coupon.id", "shop.coupon.owner_email"));

        StartupCheckException failure = leftOut(p);
        assertThat(failure.getMessage()).contains("cdc.connector.columns.exclude leaves the key column(s) shop.coupon.id");
        assertThat(failure.fix()).contains("Take these columns out of cdc.connector.columns.exclude");
    }

    @Test
    void aProjectionKeepingTheKeyAndCacheKeyColumnsIsAccepted() {
        ConnectorProperties p = properties();
        p.getColumns().setInclude(List.of("shop.coupon.id", "shop.coupon.code"));
        Map<String, String> withUniqueKey = new java.util.HashMap<>(KEYS);
        // a unique key no cache is declared to use may be left out: it is often the personal data being left out
        withUniqueKey.put("shop.coupon.owner_email", "unique key uk_email");

        assertThatCode(() -> KeyColumnCheck.of(p, TABLES).verify(withUniqueKey)).doesNotThrowAnyException();
    }
}
