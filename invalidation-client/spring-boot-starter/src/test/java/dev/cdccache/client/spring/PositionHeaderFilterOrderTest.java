package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;

/**
 * Spring Boot registers a {@code Filter} bean at the order it declares, {@code LOWEST_PRECEDENCE} when it
 * declares none, which is after Spring Security's filter chain ({@code SecurityProperties.DEFAULT_FILTER_ORDER}, -100)
 * and every other ordered filter. The header filter declares an order ahead of them, so that cache reads made there
 * (a cached {@code UserDetailsService} during authentication, a tenant or session lookup) are held to the request's
 * {@code Cdc-Position} floor.
 */
class PositionHeaderFilterOrderTest {

    /** Spring Security's default filter order ({@code SecurityProperties.DEFAULT_FILTER_ORDER}). */
    private static final int SPRING_SECURITY_FILTER_ORDER = -100;

    private static int orderOf(Object bean) {
        return new AnnotationAwareOrderComparator() {
            int of(Object o) {
                return getOrder(o);
            }
        }.of(bean);
    }

    @Test
    void theHeaderFilterSetsTheRequestFloorBeforeSpringSecuritysFilterChainReadsAnyCache() {
        assertThat(orderOf(new PositionHeaderFilter(() -> null))).isLessThan(SPRING_SECURITY_FILTER_ORDER);
    }
}
