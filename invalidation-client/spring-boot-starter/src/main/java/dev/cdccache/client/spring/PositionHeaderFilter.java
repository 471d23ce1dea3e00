package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.position.CommitPosition;
import dev.cdccache.client.position.ReadYourWrites;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Enumeration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;

/**
 * Read-your-writes across instances, through the {@value #HEADER} HTTP header:
 * <ul>
 *   <li>a request carrying the header (a commit position such as {@code 0-1-451}) has it as its request floor: its
 *       cache reads, on this thread, are served only once the cache has proven that position applied, whichever
 *       instance wrote it;</li>
 *   <li>a response to a request whose transactions committed writes carries their position in the header (with
 *       {@code read-your-writes.enabled}), set before the response is committed.</li>
 * </ul>
 * The caller (a browser application, another service, or the gateway on its behalf) sends the position it got back
 * with its next requests. A header that is not a position is ignored (logged at DEBUG): it can only ask for more
 * waiting, never for less. A transaction that commits after the response started streaming is not in the header.
 *
 * <p>Ordered at {@value #ORDER}: before Spring Security's filter chain (-100) and Spring's request context filter
 * (-105), so that cache reads made by filters (a cached user, tenant or session lookup during authentication) are
 * held to the request floor too; after the character-encoding filter.
 */
final class PositionHeaderFilter implements Filter, Ordered {

    /** The filter's order: ahead of every filter that may read a cache. */
    static final int ORDER = -110;

    /** The header: the commit position a request's reads are held to, and the one a response's writes reached. */
    static final String HEADER = "Cdc-Position";

    private static final Logger LOG = LoggerFactory.getLogger(PositionHeaderFilter.class);

    private final Supplier<InvalidationClient> client;

    PositionHeaderFilter(Supplier<InvalidationClient> client) {
        this.client = client;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        InvalidationClient invalidationClient = client.get();
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse httpResponse)
                || invalidationClient == null) {
            chain.doFilter(request, response);
            return;
        }
        CommitPosition floor = floorOf(http);
        RequestWrites writes = RequestWrites.open();
        PositionResponse wrapped = new PositionResponse(httpResponse, writes);
        try (ReadYourWrites.Scope scope = floor.isEmpty() ? null : invalidationClient.readYourWrites().withFloor(floor)) {
            chain.doFilter(request, wrapped);
        } finally {
            wrapped.addPosition();
            writes.close();
        }
    }

    /**
     * Every {@value #HEADER} line of the request together: HTTP lets a list header arrive as several lines instead of
     * one comma-joined line (a proxy merging two positions may send either), and the floor is the same either way.
     * A line that is not a position is ignored on its own; it cannot drop the others.
     */
    private static CommitPosition floorOf(HttpServletRequest request) {
        Enumeration<String> lines = request.getHeaders(HEADER);
        CommitPosition floor = CommitPosition.NONE;
        while (lines != null && lines.hasMoreElements()) {
            String header = lines.nextElement();
            Optional<CommitPosition> position = CommitPosition.parse(header);
            if (position.isPresent()) {
                floor = floor.max(position.get());
            } else {
                LOG.debug("Ignored a {} header that is not a commit position: '{}'", HEADER,
                        header.length() > 100 ? header.substring(0, 100) + "..." : header);
            }
        }
        return floor;
    }

    /** Sets the header before anything commits the response. */
    private static final class PositionResponse extends HttpServletResponseWrapper {
        private final RequestWrites writes;

        PositionResponse(HttpServletResponse response, RequestWrites writes) {
            super(response);
            this.writes = writes;
        }

        void addPosition() {
            CommitPosition written = writes.written();
            if (!written.isEmpty() && !isCommitted()) {
                setHeader(HEADER, written.toString());
            }
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            addPosition();
            return super.getOutputStream();
        }

        @Override
        public PrintWriter getWriter() throws IOException {
            addPosition();
            return super.getWriter();
        }

        @Override
        public void flushBuffer() throws IOException {
            addPosition();
            super.flushBuffer();
        }

        @Override
        public void sendError(int sc, String msg) throws IOException {
            addPosition();
            super.sendError(sc, msg);
        }

        @Override
        public void sendError(int sc) throws IOException {
            addPosition();
            super.sendError(sc);
        }

        @Override
        public void sendRedirect(String location) throws IOException {
            addPosition();
            super.sendRedirect(location);
        }
    }
}
