package dev.cdccache.verifier.workload;

/** The kinds of transactions the writer runs. */
public enum WriteKind {
    INITIAL_LOAD("initial load (multi-row INSERT)"),
    UPDATE("single-row update"),
    HOT_UPDATE("single-row update of a hot key"),
    CODE_CHANGE("secondary-key (code) change"),
    GROUP_CHANGE("group change (moves a row between lists)"),
    DELETE("delete"),
    INSERT_LOOKED_UP("insert of an id a reader looked up (negative entry)"),
    INSERT("insert of another absent id"),
    MULTI_ROW("multi-row transaction"),
    ROLLED_BACK("rolled-back transaction (nothing committed)"),
    BULK_UPDATE("bulk update of a range of ids"),
    TRUNCATE("TRUNCATE TABLE"),
    REFILL("refill after TRUNCATE (multi-row INSERT)"),
    SCHEMA_CHANGE("schema change (ALTER TABLE ADD/DROP COLUMN)");

    private final String description;

    WriteKind(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
