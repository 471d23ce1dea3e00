package dev.cdccache.coupon.jdbc;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.MeterBinder;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wraps the application's DataSource so that every executed statement is counted. */
@Configuration(proxyBeanMethods = false)
public class StatementCountingConfiguration {

    @Bean
    public StatementCounter statementCounter() {
        return new StatementCounter();
    }

    /** Read on scrape, so the JDBC path pays one {@code LongAdder} increment and nothing else. */
    @Bean
    public MeterBinder statementCounterMetrics(StatementCounter counter) {
        return registry -> FunctionCounter.builder("coupon.db.statements", counter, StatementCounter::count)
                .description("SQL statements executed by this instance")
                .register(registry);
    }

    @Bean
    static BeanPostProcessor statementCountingDataSourcePostProcessor(ObjectProvider<StatementCounter> counter) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof DataSource dataSource && !(bean instanceof StatementCountingDataSource)) {
                    return new StatementCountingDataSource(dataSource, counter.getObject());
                }
                return bean;
            }
        };
    }
}
