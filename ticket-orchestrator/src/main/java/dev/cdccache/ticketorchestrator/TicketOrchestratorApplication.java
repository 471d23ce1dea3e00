package dev.cdccache.ticketorchestrator;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.cache.annotation.EnableCaching;

/**
 * Composes pages of season tickets with reference data (categories, parking lots, car-exchange details) kept
 * in local caches that the database's change stream invalidates, plus the coupons that apply to each
 * ticket's parking lot from coupon-service.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableCaching
public class TicketOrchestratorApplication {

    /**
     * Starts the service.
     *
     * @param args Spring Boot command-line arguments ({@code --name=value} properties)
     */
    public static void main(String[] args) {
        SpringApplication.run(TicketOrchestratorApplication.class, args);
    }
}
