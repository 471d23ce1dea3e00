package dev.cdccache.coupon.caching.hibernate;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.context.internal.ManagedSessionContext;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * The catalog's calls of one request share the read-only session the filter opened, which is closed when the
 * request ends; outside a request each call has its own. The session factory is a fake that records the sessions it
 * opens (what is checked is which session each call uses, not what Hibernate does with it).
 */
class RequestSessionFilterTest {

    /** A session that answers every find with "no such row" and records whether it was closed and read-only. */
    private static final class FakeSession {
        boolean closed;
        boolean readOnly;
        int finds;
        Session session;
    }

    private final List<FakeSession> opened = new ArrayList<>();
    private final SessionFactory factory = (SessionFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {SessionFactory.class}, (proxy, method, args) -> switch (method.getName()) {
                case "openSession" -> open((SessionFactory) proxy);
                case "getCurrentSession" -> opened.get(opened.size() - 1).session;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw new UnsupportedOperationException(method.getName());
            });

    private Session open(SessionFactory owner) {
        FakeSession fake = new FakeSession();
        fake.session = (Session) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Session.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "setDefaultReadOnly" -> {
                        fake.readOnly = (Boolean) args[0];
                        yield null;
                    }
                    case "find" -> {
                        fake.finds++;
                        yield null;
                    }
                    case "close" -> {
                        fake.closed = true;
                        yield null;
                    }
                    case "getSessionFactory" -> owner;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        opened.add(fake);
        return fake.session;
    }

    @Test
    void theCallsOfOneRequestShareOneReadOnlySessionClosedAtTheEndOfTheRequest() throws Exception {
        HibernateCouponCatalog catalog = new HibernateCouponCatalog(factory);
        MockFilterChain chain = new MockFilterChain(new jakarta.servlet.http.HttpServlet() {
            @Override
            protected void service(jakarta.servlet.http.HttpServletRequest request,
                    jakarta.servlet.http.HttpServletResponse response) {
                // what the place endpoints do: the place, then its coupons
                catalog.findPlace(7);
                catalog.findPlaceCoupons(7);
            }
        });

        new RequestSessionFilter(factory).doFilter(new MockHttpServletRequest("GET", "/places/7/coupon-progresses"),
                new MockHttpServletResponse(), chain);

        assertThat(opened).hasSize(1);
        assertThat(opened.get(0).finds).isEqualTo(2);
        assertThat(opened.get(0).readOnly).isTrue();
        assertThat(opened.get(0).closed).isTrue();
        assertThat(ManagedSessionContext.hasBind(factory)).as("unbound after the request").isFalse();
    }

    @Test
    void outsideARequestEachCallHasItsOwnReadOnlySession() {
        HibernateCouponCatalog catalog = new HibernateCouponCatalog(factory);

        catalog.findPlace(7);
        catalog.findPlaceCoupons(7);

        assertThat(opened).hasSize(2).allSatisfy(s -> assertThat(s.readOnly && s.closed && s.finds == 1).isTrue());
    }
}
