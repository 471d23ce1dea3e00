package dev.cdccache.ticketorchestrator.statement;

import javax.sql.DataSource;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.cdccache.ticketorchestrator.reference.ReferenceType;

/**
 * Counts every statement executed through the service's data source, and publishes the counts of the
 * tables composition reads as {@code ticket.db.statements{table=...}}.
 */
@Configuration(proxyBeanMethods = false)
class StatementCountingConfiguration {

    @Bean
    static StatementCounter statementCounter() {
        return new StatementCounter();
    }

    @Bean
    static BeanPostProcessor statementCountingDataSourcePostProcessor(ObjectProvider<StatementCounter> counter) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                return bean instanceof DataSource dataSource
                        ? StatementCountingDataSource.wrap(dataSource, counter.getObject()) : bean;
            }
        };
    }

    @Bean
    MeterBinder statementCountMeters(StatementCounter counter) {
        return registry -> {
            for (String table : new String[] {"season_ticket", ReferenceType.CATEGORY.table(),
                    ReferenceType.PARKING_LOT.table(), ReferenceType.CAR_EXCHANGE.table()}) {
                FunctionCounter.builder("ticket.db.statements", counter, c -> c.count(table))
                        .description("SQL statements executed, by the table they read or write")
                        .tag("table", table)
                        .register(registry);
            }
        };
    }
}
