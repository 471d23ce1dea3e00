package dev.cdccache.connector.continuity;

/**
 * Whether the binlog reader on one thread is in the stretch of events where row events can come: after a table map
 * event, until the next event group (a MariaDB GTID event) or query event. A row event always follows the table map
 * events of its statement, so an undecodable event outside that stretch is not a row event: it is a query event,
 * which may be a schema change. Used by one binlog thread only.
 */
final class TableMapWindow {

    private boolean open;

    /** A table was mapped (captured or not): row events of it may follow. */
    void open() {
        open = true;
    }

    /** An event group started, or a query event was read: no row event follows before the next table map. */
    void close() {
        open = false;
    }

    /** Whether an event read now may be one of a table's row events. */
    boolean isOpen() {
        return open;
    }
}
