package dev.cdccache.coupon.caching.hibernate;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.context.internal.ManagedSessionContext;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Open session in view, the usual web setup (what Spring Boot's {@code spring.jpa.open-in-view} does for JPA): one
 * read-only session per request, bound as Hibernate's current session ({@link ManagedSessionContext}) and closed
 * when the response is written, so that the catalog's calls of one request (a place, then its coupons) share a
 * session and its persistence context instead of opening one each. The session is opened before the request reads
 * anything, so its caching timestamp, the stamp of every second-level cache put it makes, is drawn before any of
 * its reads, as for a session per call. Actuator requests get none.
 */
final class RequestSessionFilter extends OncePerRequestFilter {

    private final SessionFactory sessions;

    RequestSessionFilter(SessionFactory sessions) {
        this.sessions = sessions;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return request.getRequestURI().startsWith("/actuator");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try (Session session = HibernateCouponCatalog.openReadOnly(sessions)) {
            ManagedSessionContext.bind(session);
            try {
                chain.doFilter(request, response);
            } finally {
                ManagedSessionContext.unbind(sessions);
            }
        }
    }
}
