package dev.cdccache.client.spring;

import dev.cdccache.client.position.CommitPosition;

/**
 * The commit positions written by the request being served on this thread, collected by
 * {@link ReadYourWritesListener} after each commit and returned by {@link PositionHeaderFilter} in the
 * {@value PositionHeaderFilter#HEADER} response header. Outside a request nothing is collected.
 */
final class RequestWrites {

    private static final ThreadLocal<RequestWrites> CURRENT = new ThreadLocal<>();

    private final RequestWrites outer;
    private volatile CommitPosition written = CommitPosition.NONE;

    private RequestWrites(RequestWrites outer) {
        this.outer = outer;
    }

    /** Starts collecting for a request on this thread (a forward or include nests). */
    static RequestWrites open() {
        RequestWrites writes = new RequestWrites(CURRENT.get());
        CURRENT.set(writes);
        return writes;
    }

    /** A transaction of the request on this thread committed at {@code position}. */
    static void written(CommitPosition position) {
        RequestWrites writes = CURRENT.get();
        if (writes != null) {
            writes.written = writes.written.max(position);
        }
    }

    /** What the request wrote so far ({@link CommitPosition#NONE} if nothing). */
    CommitPosition written() {
        return written;
    }

    /** Stops collecting; an enclosing request's collection goes on and gets what this one wrote. */
    void close() {
        if (outer == null) {
            CURRENT.remove();
        } else {
            outer.written = outer.written.max(written);
            CURRENT.set(outer);
        }
    }
}
