package dev.cdccache.connector.continuity;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
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
 * <p>Debezium offers no callback for this; its warning is the only signal, so this Logback filter watches for that
 * warning's message template (it sees it before any level or appender decides, so quiet logging settings do not hide
 * it). {@code StatementEventDetectorTest} checks that the Debezium in the build still logs that template.
 */
public final class StatementEventDetector extends TurboFilter {

    /** The template of Debezium's warning, as its binlog streaming source logs it. */
    static final String DEBEZIUM_TEMPLATE =
            "Received DML '{}' for processing, binlog probably contains events generated with statement or mixed based"
                    + " replication format";

    private final Consumer<String> onStatement;

    /** @param onStatement called with the statement's SQL, on the thread that reads the binlog */
    StatementEventDetector(Consumer<String> onStatement) {
        this.onStatement = onStatement;
        setName("cdc-statement-event-detector");
    }

    /** Installs a detector into the application's Logback context; {@link #uninstall()} removes it. */
    public static StatementEventDetector install(Consumer<String> onStatement) {
        StatementEventDetector detector = new StatementEventDetector(onStatement);
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            detector.setContext(context);
            detector.start();
            context.addTurboFilter(detector);
        } else {
            throw new IllegalStateException("The connector needs Logback as its logging backend to notice row changes"
                    + " the binlog holds as statements; found " + LoggerFactory.getILoggerFactory().getClass().getName());
        }
        return detector;
    }

    public void uninstall() {
        if (getContext() instanceof LoggerContext context) {
            context.getTurboFilterList().remove(this);
        }
        stop();
    }

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (DEBEZIUM_TEMPLATE.equals(format)) {
            onStatement.accept(params != null && params.length > 0 ? String.valueOf(params[0]) : "");
        }
        return FilterReply.NEUTRAL;
    }
}
