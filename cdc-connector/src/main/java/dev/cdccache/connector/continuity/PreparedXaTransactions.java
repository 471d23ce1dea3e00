package dev.cdccache.connector.continuity;

import com.github.shyiko.mysql.binlog.event.XAPrepareEventData;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The prepared XA transactions one binlog reader has read, and whether each carried rows of a captured table, so
 * that the commit of one that did not (another application's transaction on the same server, the other resource of
 * a JTA transaction) costs the clients nothing. Debezium maps the table of every row event it captures, and logs
 * that at DEBUG; a prepared part is the events between {@code XA START} and its {@code XA PREPARE} event.
 *
 * <p>A commit of a transaction not read prepared (prepared before the reader's start position, or forgotten among
 * more than {@value #LIMIT}) counts as one that carried such rows. Used by one binlog thread only.
 */
final class PreparedXaTransactions {

    static final int LIMIT = 10_000;

    private final Map<String, Boolean> prepared = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > LIMIT;
        }
    };
    private boolean inPreparedPart;
    private boolean capturedRows;

    /**
     * A transaction started: a MariaDB GTID event, or an {@code XA START} (or {@code XA BEGIN}) statement, which MySQL
     * logs as a query.
     */
    void started() {
        inPreparedPart = true;
        capturedRows = false;
    }

    /** Debezium mapped a captured table's number: a row event of that table follows. */
    void capturedTableMapped() {
        capturedRows = true;
    }

    /** The {@code XA PREPARE} event that ends a prepared part was read. */
    void prepared(XAPrepareEventData data) {
        if (data.isOnePhase()) {
            inPreparedPart = false;
            return; // committed with its rows: no commit statement follows
        }
        byte[] xid = data.getData() == null ? new byte[0] : data.getData();
        int gtrid = Math.min(data.getGtridLength(), xid.length);
        int bqual = Math.min(data.getBqualLength(), xid.length - gtrid);
        // a prepared part read from its start; one whose start came before the reader's position may hold anything
        prepared.put(key(Arrays.copyOfRange(xid, 0, gtrid), Arrays.copyOfRange(xid, gtrid, gtrid + bqual),
                data.getFormatID()), !inPreparedPart || capturedRows);
        inPreparedPart = false;
        capturedRows = false;
    }

    /**
     * Whether the commit {@code sql} ({@code XA COMMIT X'..',X'..',n}, as the server logs it) may make rows of a
     * captured table visible that a client cached the old version of since their prepare.
     */
    boolean commitConcernsCapturedRows(String sql) {
        int at = sql.toUpperCase(Locale.ROOT).indexOf("COMMIT");
        Boolean captured = at < 0 ? null : prepared.remove(normalize(sql.substring(at + 6)));
        return captured == null || captured;
    }

    /** The xid as the server writes it in {@code XA COMMIT}: {@code X'gtrid',X'bqual',formatID}, normalised. */
    static String key(byte[] gtrid, byte[] bqual, int formatId) {
        return "x'" + HexFormat.of().formatHex(gtrid) + "',x'" + HexFormat.of().formatHex(bqual) + "'," + formatId;
    }

    private static String normalize(String xid) {
        StringBuilder out = new StringBuilder(xid.length());
        for (int i = 0; i < xid.length(); i++) {
            char c = xid.charAt(i);
            if (!Character.isWhitespace(c) && c != ';') {
                out.append(Character.toLowerCase(c));
            }
        }
        return out.toString();
    }
}
