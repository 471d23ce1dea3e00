package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.position.CommitPosition;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** The Cdc-Position header: the request's floor while it is served, and the request's writes in its response. */
class PositionHeaderFilterTest {

    private final InvalidationClient client = new InvalidationClient(InvalidationClientConfig.builder()
            .bootstrapServers("unused:1")
            .cache(CacheDefinition.builder("names").table("db.item").keyColumns("id").build()).build());
    private final PositionHeaderFilter filter = new PositionHeaderFilter(() -> client);
    private final MockHttpServletResponse response = new MockHttpServletResponse();

    @AfterEach
    void close() {
        client.close();
    }

    private static CommitPosition position(String text) {
        return CommitPosition.parse(text).orElseThrow();
    }

    /** A GET carrying one {@code Cdc-Position} header line per argument. */
    private static MockHttpServletRequest withHeaderLines(String... lines) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/items/1");
        for (String line : lines) {
            request.addHeader(PositionHeaderFilter.HEADER, line);
        }
        return request;
    }

    /** The read floor the request's thread is held to while the filter chain serves it. */
    private CommitPosition floorWhileServing(MockHttpServletRequest request) throws Exception {
        AtomicReference<CommitPosition> during = new AtomicReference<>();
        filter.doFilter(request, response, (req, res) -> during.set(client.readYourWrites().currentFloor()));
        return during.get();
    }

    @Test
    void aRequestCarryingThePositionIsHeldToItWhileItIsServed() throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/items/1");
        request.addHeader(PositionHeaderFilter.HEADER, "0-1-451");
        AtomicReference<CommitPosition> during = new AtomicReference<>();

        filter.doFilter(request, response, new MockFilterChain(new jakarta.servlet.http.HttpServlet() {
            @Override
            protected void service(jakarta.servlet.http.HttpServletRequest req,
                    jakarta.servlet.http.HttpServletResponse res) {
                during.set(client.readYourWrites().currentFloor());
            }
        }));

        assertThat(during.get()).isEqualTo(position("0-1-451"));
        assertThat(client.readYourWrites().currentFloor()).isEqualTo(CommitPosition.NONE);
        assertThat(response.getHeader(PositionHeaderFilter.HEADER)).as("nothing written").isNull();
    }

    @Test
    void aResponseCarriesWhatItsRequestsTransactionsWroteBeforeItsBodyIsWritten() throws Exception {
        filter.doFilter(new MockHttpServletRequest("POST", "/items"), response,
                new MockFilterChain(new jakarta.servlet.http.HttpServlet() {
                    @Override
                    protected void service(jakarta.servlet.http.HttpServletRequest req,
                            jakarta.servlet.http.HttpServletResponse res) throws java.io.IOException {
                        RequestWrites.written(position("0-1-451")); // what the listener does after each commit
                        RequestWrites.written(position("0-1-452"));
                        res.getWriter().write("created");
                        res.flushBuffer();
                    }
                }));

        assertThat(response.isCommitted()).isTrue();
        assertThat(response.getHeader(PositionHeaderFilter.HEADER)).isEqualTo("0-1-452");
    }

    @Test
    void aHeaderThatIsNotAPositionIsIgnored() throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/items/1");
        request.addHeader(PositionHeaderFilter.HEADER, "DROP TABLE");

        assertThat(floorWhileServing(request)).isEqualTo(CommitPosition.NONE);
    }

    @Test
    void aRequestCarryingTheHeaderOnSeveralLinesIsHeldToEveryPosition() throws Exception {
        // HTTP allows a list header as several lines instead of one comma-joined line (a proxy or gateway merging
        // the positions of two writes may send either); both forms mean the same floor.
        assertThat(floorWhileServing(withHeaderLines("0-1-451", "0-2-7"))).isEqualTo(position("0-1-451,0-2-7"));
    }

    @Test
    void aLineThatIsNotAPositionDoesNotDropTheOtherLines() throws Exception {
        assertThat(floorWhileServing(withHeaderLines("DROP TABLE", "0-1-451"))).isEqualTo(position("0-1-451"));
    }
}
