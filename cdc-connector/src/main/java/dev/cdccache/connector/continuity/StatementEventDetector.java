package dev.cdccache.connector.continuity;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggerContextListener;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import ch.qos.logback.core.spi.FilterReply;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.RotateEventData;
import com.github.shyiko.mysql.binlog.event.XAPrepareEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Notices a row change that the binlog holds as an SQL statement instead of as rows. That happens when a writer's
 * session runs with {@code binlog_format} STATEMENT or MIXED (set globally after the connector started, or per
 * session by a user with the privilege to): Debezium cannot tell which rows the statement changed, logs a warning
 * and goes on, so no event reaches the clients while heartbeats keep proving the table. The start-up check cannot
 * see it, since it only reads the global setting once.
 *
 * <p>Debezium offers no callback for this; its warning is the only signal, so this Logback appender, attached to the
 * one logger that logs it, watches for that warning's message template. {@code StatementEventDetectorTest} checks
 * that the Debezium in the build still logs that template.
 *
 * <p>Why an appender on one logger and not a context-wide filter: a Logback turbo filter runs for every logging call
 * of the process before the level check, allocation included, and Debezium's binlog thread makes several disabled
 * debug and trace calls per row: that took about a fifth of the thread's time on bulk changes. An appender costs
 * nothing until a warning is logged. So that quiet logging settings do not hide the warning, the detector keeps that
 * logger at WARN or more verbose (a level change or a reset of the logging context puts it back, and the appender
 * too); the warning then also reaches the application's appenders, where it belongs.
 *
 * <p>A turbo filter of the application decides before any level, so no level can undo one that denies the warning
 * (a {@code DuplicateMessageFilter} does once the same statement repeats). So the detector keeps its own
 * {@link Passage} first in the turbo filter list: it accepts that warning, and the connector's own continuity
 * warnings and errors, whatever the filters after it answer, and is neutral for everything else.
 *
 * <p>Debezium's warning does not cover every form: its default DDL filter matches every {@code REPLACE INTO} before
 * the check that warns, and drops it with only a DEBUG line; a statement that starts with a comment or a lower-case
 * {@code set statement ... for} is not taken for a row change at all. So the passage also reads the DEBUG line with
 * which Debezium starts handling every query event (a turbo filter is asked before the level check, so at any level)
 * and hands a row change in any of these forms to the detectors, once per statement. That is why the passage stays
 * in the list even when it is the only turbo filter; it costs every logging call one comparison of the level, a
 * DEBUG call one of the logger's name and a TRACE call one of its template (Spring Boot's Micrometer integration
 * keeps a turbo filter in the list anyway).
 *
 * <p>Some row changes reach the binlog as events Debezium has no handler for: {@code LOAD DATA} logged as a statement,
 * and every row or query event MariaDB compresses while {@code log_bin_compress=ON} (the binlog reader cannot decode
 * them). Debezium skips such an event with a TRACE line that carries it; the passage reads that line too, at any
 * level, and hands what the event may have changed to the detectors ({@link UnreadableChangeClassifier}). A
 * compressed row event and a compressed query event (a schema change, perhaps) look alike; where the event stands
 * tells them apart ({@link TableMapWindow}), read from Debezium's lines for table maps (its TRACE line for tables it
 * does not capture), GTID events and query events.
 *
 * <p>From the query line it also hands on two more query events after which clients may hold rows no row event will
 * evict: the commit of a prepared XA transaction (Debezium published its rows at {@code XA PREPARE}, before readers
 * saw them, and skips the commit), and a schema change that may replace or rewrite a table's rows ({@code RENAME
 * TABLE} swapping a table in, {@code DROP TABLE}); whether it names a captured table is the detectors' to decide
 * ({@link SchemaChangeScope}). See {@link UnreadableChange.Kind}.
 *
 * <p>The list is checked on every reset and level change of the logging context and, for a filter added by code at
 * any other time, once a second.
 */
public final class StatementEventDetector extends UnsynchronizedAppenderBase<ILoggingEvent>
        implements LoggerContextListener {

    /** The logger Debezium's binlog streaming source logs the warning with. */
    static final String DEBEZIUM_LOGGER = "io.debezium.connector.binlog.BinlogStreamingChangeEventSource";

    /** The template of Debezium's warning, as its binlog streaming source logs it. */
    static final String DEBEZIUM_TEMPLATE =
            "Received DML '{}' for processing, binlog probably contains events generated with statement or mixed based"
                    + " replication format";

    /**
     * The template of the DEBUG line with which Debezium drops a statement its DDL filter matches. Its default filter
     * matches every {@code REPLACE INTO}, before the check that would warn about a row change: a {@code REPLACE} the
     * binlog holds as a statement only shows here.
     */
    static final String DEBEZIUM_FILTERED_TEMPLATE = "DDL '{}' was filtered out of processing";

    /**
     * The template of the DEBUG line with which Debezium starts handling every query event of the binlog, with the
     * event as its argument: before its own checks, so the passage sees every statement in any form.
     */
    static final String DEBEZIUM_QUERY_TEMPLATE = "Received query command: {}";

    /**
     * The template of the TRACE line with which Debezium skips an event it has no handler for, with the event as its
     * argument: a compressed MariaDB event, {@code LOAD DATA} logged as a statement (see {@link UnreadableChangeClassifier}).
     */
    static final String DEBEZIUM_IGNORED_TEMPLATE = "Ignoring event due to missing handler: {}";

    /** The logger of Debezium's MariaDB streaming source. */
    static final String MARIADB_LOGGER = "io.debezium.connector.mariadb.MariaDbStreamingChangeEventSource";

    /**
     * The DEBUG line with which Debezium's MariaDB source handles a GTID event, which starts every transaction (an
     * XA transaction's prepared part too: MariaDB writes its {@code XA START} into that event).
     */
    static final String MARIADB_GTID_TEMPLATE = "MariaDB GTID transaction: {}";

    /** The DEBUG line with which Debezium maps the number of a table it captures, before that table's row events. */
    static final String DEBEZIUM_TABLE_MAP_TEMPLATE = "Received update table metadata event: {}";

    /**
     * The TRACE line with which Debezium passes over an event of a table it does not capture, with the event's type
     * and the table as its arguments: for a table map event among them, row events of that table follow.
     */
    static final String DEBEZIUM_FILTERED_EVENT_TEMPLATE = "Filtered {} event for {}";

    /**
     * The DEBUG line with which Debezium handles a rotate event, with the event as its argument: the binlog file the
     * events after it are in (a reader's connection starts with one).
     */
    static final String DEBEZIUM_ROTATE_TEMPLATE = "Rotating logs: {}";

    /** The DEBUG line with which Debezium handles an {@code XA PREPARE} event, with the event as its argument. */
    static final String DEBEZIUM_XA_PREPARE_TEMPLATE = "XA Prepare event: {}";

    /**
     * The template of the ERROR line with which Debezium reports an incident event of the binlog (the server could
     * not log some changes, such as {@code LOST_EVENTS}) and reads on, with the event as its argument.
     */
    static final String DEBEZIUM_INCIDENT_TEMPLATE = "Server incident: {}";

    /**
     * The statement of the query event being handled on this thread, if it was noticed from Debezium's first line:
     * Debezium's own warning or filter line for the same statement follows, and must not renew the epoch twice.
     */
    private static final ThreadLocal<String> NOTICED = new ThreadLocal<>();

    /** The prepared XA transactions the binlog reader on this thread has read (see {@link PreparedXaTransactions}). */
    private static final ThreadLocal<PreparedXaTransactions> XA = ThreadLocal.withInitial(PreparedXaTransactions::new);

    /** Whether the binlog reader on this thread is where row events can come (see {@link TableMapWindow}). */
    private static final ThreadLocal<TableMapWindow> ROWS = ThreadLocal.withInitial(TableMapWindow::new);

    /** The binlog file the reader on this thread reads, from the last rotate event; null before the first. */
    private static final ThreadLocal<String> BINLOG_FILE = new ThreadLocal<>();

    /**
     * The server id of that binlog's server, from the last rotate event's header. Not an event's own: a replica logs
     * events it applies, an incident among them, with its primary's id.
     */
    private static final ThreadLocal<Long> BINLOG_SERVER = new ThreadLocal<>();

    /** Where the last format description event Debezium skipped on this thread ended (see {@link Passage}). */
    private static final ThreadLocal<Long> FORMAT_DESCRIPTION_END = new ThreadLocal<>();

    /** Every detector installed: the passage hands them the statements Debezium's filter drops. */
    private static final List<StatementEventDetector> INSTALLED = new java.util.concurrent.CopyOnWriteArrayList<>();

    private static final org.slf4j.Logger log = LoggerFactory.getLogger(StatementEventDetector.class);

    /** How often the turbo filter list is checked besides on resets and level changes. */
    static final long PASSAGE_CHECK_MILLIS = 1_000;

    private final Consumer<UnreadableChange> onChange;
    /** Replaced by a new instance whenever it is put first, so that the old one can be removed by identity. */
    private volatile Passage passage = new Passage();
    private ScheduledExecutorService passageCheck;
    private volatile boolean installed;
    /** The context was stopped: that drops every listener, this one too, whether reset-resistant or not. */
    private volatile boolean contextStopped;
    /** The application's turbo filters last named, so that a reconfiguration with the same ones is not logged again. */
    private volatile List<String> turboFiltersNamed = List.of();

    /** @param onChange called with each change noticed, on the thread that reads the binlog */
    StatementEventDetector(Consumer<UnreadableChange> onChange) {
        this.onChange = onChange;
        setName("cdc-statement-event-detector");
    }

    /**
     * Installs a detector into the application's Logback context; {@link #uninstall()} removes it.
     *
     * @param onChange called with each change noticed, on the thread that reads the binlog; what it throws fails
     *     Debezium's event handler, before the engine stores an offset past the event
     */
    public static StatementEventDetector install(Consumer<UnreadableChange> onChange) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            throw new IllegalStateException("The connector needs Logback as its logging backend to notice row changes"
                    + " the binlog holds as statements; found " + LoggerFactory.getILoggerFactory().getClass().getName());
        }
        StatementEventDetector detector = new StatementEventDetector(onChange);
        detector.setContext(context);
        detector.start();
        detector.installed = true;
        INSTALLED.add(detector);
        context.addListener(detector);
        detector.attach(context);
        detector.passageCheck = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "cdc-statement-warning-passage");
            thread.setDaemon(true);
            return thread;
        });
        detector.passageCheck.scheduleWithFixedDelay(() -> {
            try {
                detector.keepPassageFirst(context);
            } catch (Throwable e) { // anything thrown out of a run would end the schedule for good
                try {
                    log.warn("Could not check the Logback turbo filter list", e);
                } catch (Throwable ignored) {
                    // the next run tries again
                }
            }
        }, PASSAGE_CHECK_MILLIS, PASSAGE_CHECK_MILLIS, TimeUnit.MILLISECONDS);
        return detector;
    }

    public void uninstall() {
        installed = false;
        INSTALLED.remove(this);
        if (passageCheck != null) {
            passageCheck.shutdownNow();
        }
        if (getContext() instanceof LoggerContext context) {
            context.removeListener(this);
            context.getLogger(DEBEZIUM_LOGGER).detachAppender(this);
            synchronized (this) { // after a check in progress, which may still have put it first
                context.getTurboFilterList().remove(passage);
            }
            for (StatementEventDetector other : INSTALLED) { // one still installed puts its passage first at once
                if (other.getContext() == context) {
                    other.keepPassageFirst(context);
                    break;
                }
            }
        }
        stop();
    }

    /**
     * Not {@link UnsynchronizedAppenderBase#doAppend}: that catches what {@link #append} throws and only records it
     * as a status. A failure to act on the warning (the heartbeat row with the new epoch not written) must reach
     * Debezium's event handler on the binlog thread, which fails the engine before it stores an offset past the
     * statement, so that a restart reads the statement again.
     */
    @Override
    public void doAppend(ILoggingEvent event) {
        if (isStarted()) {
            append(event);
        }
    }

    @Override
    protected void append(ILoggingEvent event) {
        if (DEBEZIUM_TEMPLATE.equals(event.getMessage())) {
            Object[] params = event.getArgumentArray();
            String sql = params != null && params.length > 0 ? String.valueOf(params[0]) : "";
            String noticed = NOTICED.get();
            NOTICED.remove();
            if (!sql.equals(noticed)) { // else noticed already from the query line, by the passage
                onChange.accept(new UnreadableChange(UnreadableChange.Kind.STATEMENT, sql));
            }
        }
    }

    /** Hands {@code sql} to every detector installed; a failure reaches Debezium's handler on this thread. */
    private static void noticeEverywhere(String sql) {
        notice(new UnreadableChange(UnreadableChange.Kind.STATEMENT, sql));
    }

    /** Hands {@code change} to every detector installed; a failure reaches Debezium's handler on this thread. */
    private static void notice(UnreadableChange change) {
        try {
            for (StatementEventDetector detector : INSTALLED) {
                detector.onChange.accept(change);
            }
        } catch (RuntimeException e) {
            // Logback swallows an IndexOutOfBoundsException from a lone turbo filter: this must reach Debezium,
            // which fails the engine before an offset past the statement is stored
            throw new IllegalStateException("Could not act on " + change.kind() + " in the binlog: " + e.getMessage(), e);
        }
    }

    /** What an incident event says (its type and message; no row values), or a placeholder for anything else. */
    private static String incidentOf(Object event) {
        if (event instanceof Event binlogEvent && binlogEvent.getData() != null) {
            return binlogEvent.getData().toString();
        }
        return "an incident event";
    }

    /** Where an event starts in the binlog the reader on this thread reads; null when unknown. */
    private static BinlogPosition placeOf(Object event) {
        String file = BINLOG_FILE.get();
        Long server = BINLOG_SERVER.get();
        return file != null && server != null && event instanceof Event e && e.getHeader() instanceof EventHeaderV4 h
                && h.getPosition() > 0 ? new BinlogPosition(server, file, h.getPosition()) : null;
    }

    /** An event's data, unwrapped from the deserializer's wrapper. */
    private static Object unwrap(Object data) {
        return data instanceof EventDeserializer.EventDataWrapper wrapper ? wrapper.getInternal() : data;
    }

    /** The default database of a query event's statement, empty when it has none. */
    private static String databaseOf(Object event) {
        QueryEventData query = queryOf(event);
        return query != null && query.getDatabase() != null ? query.getDatabase() : "";
    }

    /** The statement of a query event as Debezium handles it (trimmed), or {@code null} for anything else. */
    private static String statementOf(Object event) {
        QueryEventData query = queryOf(event);
        return query != null && query.getSql() != null ? query.getSql().trim() : null;
    }

    /** A query event's data, unwrapped from the deserializer's wrapper; {@code null} for anything else. */
    private static QueryEventData queryOf(Object event) {
        return event instanceof Event binlogEvent && unwrap(binlogEvent.getData()) instanceof QueryEventData query
                ? query : null;
    }

    /** Attaches the appender (once) and keeps the logger's level at WARN or more verbose. */
    private void attach(LoggerContext context) {
        if (!installed) {
            return;
        }
        if (!isStarted()) {
            start(); // a reset stops the appenders it detaches
        }
        Logger debezium = context.getLogger(DEBEZIUM_LOGGER);
        if (!debezium.isAttached(this)) {
            debezium.addAppender(this);
        }
        // the level alone: isWarnEnabled() also asks the turbo filters, and one that denies is the passage's concern
        if (debezium.getEffectiveLevel().levelInt > Level.WARN_INT) {
            Level configured = debezium.getEffectiveLevel();
            debezium.setLevel(Level.WARN);
            log.info("Logger {} kept at WARN instead of {}: its warning about row changes the binlog holds as"
                    + " statements is how the connector notices them", DEBEZIUM_LOGGER, configured);
        }
        keepPassageFirst(context);
    }

    /**
     * Puts {@link #passage} first in the turbo filter list, unless another detector's passage is first. Which filter
     * would deny the warning is not knowable without calling it, which would change the state of a counting filter,
     * so every filter is kept behind the passage and named once.
     */
    void keepPassageFirst(LoggerContext context) {
        List<String> toName = placePassage(context);
        if (toName != null) { // logged outside the lock: logging takes the appenders' locks
            log.info("Logback turbo filters are configured in this process: {}. The connector keeps its own turbo"
                    + " filter first, so that none of them can deny the WARN of logger {} about row changes the binlog"
                    + " holds as statements (how the connector notices them), nor the connector's own continuity"
                    + " warnings and errors; they still see those events", toName, DEBEZIUM_LOGGER);
        }
    }

    /** @return the application's turbo filters if they are to be named, {@code null} if not */
    private synchronized List<String> placePassage(LoggerContext context) {
        if (!installed) {
            return null;
        }
        List<TurboFilter> filters = context.getTurboFilterList();
        List<String> others = filters.stream().filter(f -> !(f instanceof Passage))
                .map(f -> f.getName() != null ? f.getName() + " (" + f.getClass().getName() + ")"
                        : f.getClass().getName())
                .toList();
        if (filters.isEmpty() || !(filters.get(0) instanceof Passage)) { // another detector's one will do too
            // The new one goes first before the old one leaves, so that the warning is never without a passage
            Passage previous = passage;
            Passage first = new Passage();
            first.setContext(context);
            first.start();
            filters.add(0, first);
            passage = first;
            filters.remove(previous);
        }
        boolean name = !others.isEmpty() && !others.equals(turboFiltersNamed);
        turboFiltersNamed = others;
        return name ? others : null;
    }

    /** Whether a passage is in force: first among the context's turbo filters. */
    boolean passageHolds() {
        if (!(getContext() instanceof LoggerContext context)) {
            return false;
        }
        List<TurboFilter> filters = context.getTurboFilterList();
        return !filters.isEmpty() && filters.get(0) instanceof Passage;
    }

    /** The loggers of the connector's continuity warnings and errors (gaps, epochs), which the passage lets through. */
    static final String CONTINUITY_LOGGERS = StatementEventDetector.class.getPackageName() + ".";

    /**
     * The turbo filter kept first in the list. For Debezium's warning about a statement in the binlog, and for the
     * connector's own continuity warnings and errors, it asks every other turbo filter as Logback would (a counting
     * filter, such as Micrometer's count of log events or a duplicate filter, still counts them), disregards a denial
     * and accepts, which also skips the level check. It reads Debezium's DEBUG lines about query events and its TRACE
     * line about skipped events (see the class comment) and is neutral for them. For every other call it is neutral
     * after one comparison of the level (and, for a DEBUG call, of the logger's name; for a TRACE call, of its
     * template).
     */
    static final class Passage extends TurboFilter {

        Passage() {
            setName("cdc-statement-warning-passage");
        }

        @Override
        public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
                Throwable t) {
            if (level == Level.TRACE && DEBEZIUM_IGNORED_TEMPLATE.equals(format)
                    && DEBEZIUM_LOGGER.equals(logger.getName())) {
                // an event without a handler: Debezium goes on, so one that may have changed rows is noticed here
                Object param = params != null && params.length > 0 ? params[0] : null;
                if (param instanceof Event event && event.getHeader() != null) {
                    EventType type = event.getHeader().getEventType();
                    if (type == EventType.FORMAT_DESCRIPTION) {
                        // an encrypted MariaDB binlog file holds its start encryption event, of a type the reader
                        // does not know, right after this one: not a change
                        FORMAT_DESCRIPTION_END.set(event.getHeader() instanceof EventHeaderV4 h ? h.getNextPosition() : -1L);
                        return FilterReply.NEUTRAL;
                    }
                    UnreadableChange change = UnreadableChangeClassifier.ignoredEvent(type, ROWS.get().isOpen());
                    Long formatEnd = FORMAT_DESCRIPTION_END.get();
                    boolean startsEncryption = type == EventType.UNKNOWN && formatEnd != null && formatEnd > 0
                            && event.getHeader() instanceof EventHeaderV4 h && h.getPosition() == formatEnd;
                    if (change != null && !startsEncryption) { // not MariaDB's start encryption event
                        notice(change.kind() == UnreadableChange.Kind.UNREADABLE_QUERY_EVENT
                                ? new UnreadableChange(change.kind(), change.detail(), "", placeOf(event)) : change);
                    }
                }
                return FilterReply.NEUTRAL;
            }
            if (level == Level.TRACE && DEBEZIUM_FILTERED_EVENT_TEMPLATE.equals(format)
                    && DEBEZIUM_LOGGER.equals(logger.getName())) {
                if (params != null && params.length > 0 && params[0] == EventType.TABLE_MAP) {
                    ROWS.get().open(); // rows of a table not captured follow
                }
                return FilterReply.NEUTRAL;
            }
            if (level == Level.DEBUG && MARIADB_GTID_TEMPLATE.equals(format)
                    && MARIADB_LOGGER.equals(logger.getName())) {
                XA.get().started(); // a transaction starts; an XA one's prepared part with it
                ROWS.get().close();
                return FilterReply.NEUTRAL;
            }
            if (level == Level.DEBUG && DEBEZIUM_LOGGER.equals(logger.getName())) {
                // asked before the level check, so at any level; what the detector's action throws reaches Debezium
                Object param = params != null && params.length > 0 ? params[0] : null;
                if (DEBEZIUM_QUERY_TEMPLATE.equals(format)) {
                    // every query event, before Debezium's own checks, which miss a row change that starts with a
                    // comment or a lower-case SET STATEMENT
                    ROWS.get().close();
                    String sql = statementOf(param);
                    if (sql != null && UnreadableChangeClassifier.isRowChangeStatement(sql)) {
                        NOTICED.set(sql);
                        noticeEverywhere(sql);
                    } else {
                        NOTICED.remove();
                        if (sql != null && UnreadableChangeClassifier.isXaCommitOfPrepared(sql)) {
                            // Debezium skips every XA statement: it published the rows at XA PREPARE already
                            if (XA.get().commitConcernsCapturedRows(sql)) {
                                notice(new UnreadableChange(UnreadableChange.Kind.XA_COMMIT, sql));
                            }
                        } else if (sql != null && UnreadableChangeClassifier.isXaStart(sql)) {
                            XA.get().started();
                        } else if (sql != null && UnreadableChangeClassifier.schemaChangeOf(sql)
                                != UnreadableChangeClassifier.SchemaChange.NONE) {
                            // whether it names a captured table is the detectors' to decide
                            notice(new UnreadableChange(UnreadableChange.Kind.SCHEMA_CHANGE, sql, databaseOf(param)));
                        }
                    }
                } else if (DEBEZIUM_ROTATE_TEMPLATE.equals(format)) {
                    if (param instanceof Event event && unwrap(event.getData()) instanceof RotateEventData rotate) {
                        BINLOG_FILE.set(rotate.getBinlogFilename());
                        BINLOG_SERVER.set(event.getHeader() == null ? null : event.getHeader().getServerId());
                    }
                } else if (DEBEZIUM_TABLE_MAP_TEMPLATE.equals(format)) {
                    XA.get().capturedTableMapped(); // a captured table's row event follows
                    ROWS.get().open();
                } else if (DEBEZIUM_XA_PREPARE_TEMPLATE.equals(format)) {
                    if (param instanceof Event event && unwrap(event.getData()) instanceof XAPrepareEventData prepare) {
                        XA.get().prepared(prepare);
                    }
                } else if (DEBEZIUM_FILTERED_TEMPLATE.equals(format)) {
                    // Debezium's DDL filter dropped it (every REPLACE INTO): noticed here if not from its query line
                    String sql = String.valueOf(param);
                    String noticed = NOTICED.get();
                    NOTICED.remove();
                    if (!sql.equals(noticed) && UnreadableChangeClassifier.isRowChangeStatement(sql)) {
                        noticeEverywhere(sql);
                    }
                }
                return FilterReply.NEUTRAL;
            }
            if (level == Level.ERROR && DEBEZIUM_INCIDENT_TEMPLATE.equals(format)
                    && DEBEZIUM_LOGGER.equals(logger.getName())) {
                // Debezium logs the incident and reads on; the server may have lost changes it should have logged
                Object param = params != null && params.length > 0 ? params[0] : null;
                // where it is: a server resuming a reader by GTID sends it again, which must not renew again
                notice(new UnreadableChange(UnreadableChange.Kind.INCIDENT, incidentOf(param), "", placeOf(param)));
            }
            if (level == null || level.levelInt < Level.WARN_INT || !passes(logger.getName(), level, format)) {
                return FilterReply.NEUTRAL;
            }
            if (getContext() instanceof LoggerContext context) {
                for (TurboFilter other : context.getTurboFilterList()) {
                    if (!(other instanceof Passage)) {
                        other.decide(marker, logger, level, format, params, t);
                    }
                }
            }
            return FilterReply.ACCEPT;
        }

        private static boolean passes(String logger, Level level, String format) {
            return level == Level.WARN && DEBEZIUM_LOGGER.equals(logger) && DEBEZIUM_TEMPLATE.equals(format)
                    || logger.startsWith(CONTINUITY_LOGGERS);
        }
    }

    @Override
    public void onLevelChange(Logger logger, Level level) {
        // a level set on the logger or on any of its ancestors may have silenced it
        if (getContext() instanceof LoggerContext context) {
            attach(context);
        }
    }

    @Override
    public void onReset(LoggerContext context) {
        // a reset detaches every appender; the configuration that follows sets levels, which onLevelChange checks
        attach(context);
    }

    @Override
    public void onStart(LoggerContext context) {
        attach(context);
    }

    @Override
    public void onStop(LoggerContext context) {
        // LoggerContext.stop() removes every listener right after this call. Spring Boot's LogbackLoggingSystem
        // (re)initialises with stop() then reset(); that reset stops this appender again, which puts the listener
        // back in time for the reset's onReset (see stop()).
        contextStopped = true;
    }

    @Override
    public void stop() {
        super.stop();
        if (contextStopped && installed && getContext() instanceof LoggerContext context) {
            contextStopped = false;
            if (!context.getCopyOfListenerList().contains(this)) {
                context.addListener(this);
            }
        }
    }

    @Override
    public boolean isResetResistant() {
        return true;
    }
}
