package dev.cdccache.connector.engine;

import org.springframework.context.ApplicationEvent;

/** The engine stopped by itself (not through an application shutdown). */
public class EngineFailedEvent extends ApplicationEvent {

    private final Throwable cause;

    public EngineFailedEvent(Object source, Throwable cause) {
        super(source);
        this.cause = cause;
    }

    /** Why the engine stopped. */
    public Throwable cause() {
        return cause;
    }
}
