package dev.cdccache.connector.continuity;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggerContextListener;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;

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
 */
public final class StatementEventDetector extends UnsynchronizedAppenderBase<ILoggingEvent>
        implements LoggerContextListener {

    /** The logger Debezium's binlog streaming source logs the warning with. */
    static final String DEBEZIUM_LOGGER = "io.debezium.connector.binlog.BinlogStreamingChangeEventSource";

    /** The template of Debezium's warning, as its binlog streaming source logs it. */
    static final String DEBEZIUM_TEMPLATE =
            "Received DML '{}' for processing, binlog probably contains events generated with statement or mixed based"
                    + " replication format";

    private static final org.slf4j.Logger log = LoggerFactory.getLogger(StatementEventDetector.class);

    private final Consumer<String> onStatement;
    private volatile boolean installed;
    /** The context was stopped: that drops every listener, this one too, whether reset-resistant or not. */
    private volatile boolean contextStopped;
    /** The turbo filters last warned about, so that a reconfiguration with the same ones does not warn again. */
    private volatile List<String> turboFiltersWarnedAbout = List.of();

    /** @param onStatement called with the statement's SQL, on the thread that reads the binlog */
    StatementEventDetector(Consumer<String> onStatement) {
        this.onStatement = onStatement;
        setName("cdc-statement-event-detector");
    }

    /** Installs a detector into the application's Logback context; {@link #uninstall()} removes it. */
    public static StatementEventDetector install(Consumer<String> onStatement) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            throw new IllegalStateException("The connector needs Logback as its logging backend to notice row changes"
                    + " the binlog holds as statements; found " + LoggerFactory.getILoggerFactory().getClass().getName());
        }
        StatementEventDetector detector = new StatementEventDetector(onStatement);
        detector.setContext(context);
        detector.start();
        detector.installed = true;
        context.addListener(detector);
        detector.attach(context);
        return detector;
    }

    public void uninstall() {
        installed = false;
        if (getContext() instanceof LoggerContext context) {
            context.removeListener(this);
            context.getLogger(DEBEZIUM_LOGGER).detachAppender(this);
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
            onStatement.accept(params != null && params.length > 0 ? String.valueOf(params[0]) : "");
        }
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
        if (!debezium.isWarnEnabled()) {
            Level configured = debezium.getEffectiveLevel();
            debezium.setLevel(Level.WARN);
            log.info("Logger {} kept at WARN instead of {}: its warning about row changes the binlog holds as"
                    + " statements is how the connector notices them", DEBEZIUM_LOGGER, configured);
        }
        warnAboutTurboFilters(context);
    }

    /**
     * A turbo filter decides before any logger or appender: one that denies the warning (a duplicate-message filter
     * after a few repeats, a marker or MDC filter) hides a statement from the connector, and no level this detector
     * sets can undo that. Which filter would deny it is not knowable without calling it, which would change the
     * state of a counting filter, so any turbo filter is named once.
     */
    private void warnAboutTurboFilters(LoggerContext context) {
        List<String> filters = context.getTurboFilterList().stream()
                .map(f -> f.getName() != null ? f.getName() + " (" + f.getClass().getName() + ")"
                        : f.getClass().getName())
                .toList();
        if (!filters.isEmpty() && !filters.equals(turboFiltersWarnedAbout)) {
            log.warn("Logback turbo filters are configured: {}. A turbo filter that denies the WARN of logger {} (for"
                    + " example a DuplicateMessageFilter once the same statement repeats) hides row changes the binlog"
                    + " holds as statements from the connector, and their rows stay cached everywhere. Make each"
                    + " filter let that logger's warnings through.", filters, DEBEZIUM_LOGGER);
        }
        turboFiltersWarnedAbout = filters;
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
