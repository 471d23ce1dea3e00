package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.settings.ClientSettings;
import dev.cdccache.client.spring.health.CdcInvalidationHealthIndicator;
import dev.cdccache.client.spring.health.ClientProblem;
import dev.cdccache.client.spring.health.ClientProblemSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A problem only an operator can fix (here a cache bound to a topic that does not exist: a misspelled
 * topic-prefix or table, or a table the connector does not capture) must be visible to a load balancer: the
 * client's health is DOWN and the recommended readiness group answers 503. Not fresh for a reason that clears by
 * itself stays DEGRADED, visible in the body, with the instance kept in service.
 */
class HealthReadinessTest {

    private static final String READINESS = "management.endpoint.health.group.readiness.include=readinessState,cdcInvalidation";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class,
                    ApplicationAvailabilityAutoConfiguration.class, HealthContributorAutoConfiguration.class,
                    HealthContributorRegistryAutoConfiguration.class, AvailabilityHealthContributorAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class))
            .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1", "cdc.invalidation.await-ready=5s",
                    "management.endpoint.health.probes.enabled=true",
                    "management.endpoint.health.show-details=always",
                    "management.endpoint.health.group.readiness.show-details=always");

    @Test
    void aCacheBoundToATopicThatDoesNotExistMakesHealthDownAndTheReadinessGroup503() {
        runner.withUserConfiguration(MissingTopicClient.class).withPropertyValues(READINESS).run(context -> {
            CdcInvalidationHealthIndicator indicator = context.getBean(CdcInvalidationHealthIndicator.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> Status.DOWN.equals(indicator.health(true).getStatus()));
            Health health = indicator.health(true);
            assertThat(problems(health)).anySatisfy(problem -> {
                assertThat(problem).containsEntry("severity", "requires-action").containsEntry("code", "missing-topic");
                assertThat(problem.get("message")).contains("cdc.coupon_db.copon");
            });
            assertThat(readinessStatus(context)).isEqualTo(Status.DOWN);
            assertThat(readinessHttpCode(context)).isEqualTo(503);
        });
    }

    @Test
    void notFreshIsDegradedAndVisibleButKeepsTheInstanceInService() {
        // Ready (topics exist) but no heartbeat has ever arrived: the client cannot show it is fresh.
        runner.withUserConfiguration(NoHeartbeatClient.class).withPropertyValues(READINESS).run(context -> {
            CdcInvalidationHealthIndicator indicator = context.getBean(CdcInvalidationHealthIndicator.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(InvalidationClient.class).isReady());
            Health health = indicator.health(true);
            assertThat(health.getStatus()).isEqualTo(new Status("DEGRADED"));
            assertThat(problems(health)).singleElement().satisfies(problem -> assertThat(problem)
                    .containsEntry("severity", "transient").containsEntry("code", "not-fresh"));
            assertThat(readinessHttpCode(context)).isEqualTo(200);
            assertThat(health.getDetails()).as("error counts are cumulative and say so")
                    .containsKey("errorsSinceStart").doesNotContainKey("errors");
        });
        // The recommended status order makes the group itself say DEGRADED, still with 200.
        runner.withUserConfiguration(NoHeartbeatClient.class).withPropertyValues(READINESS,
                "management.endpoint.health.group.readiness.status.order=down,out-of-service,degraded,up")
                .run(context -> {
                    await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(InvalidationClient.class).isReady());
                    assertThat(readinessStatus(context)).isEqualTo(new Status("DEGRADED"));
                    assertThat(readinessHttpCode(context)).isEqualTo(200);
                });
    }

    @Test
    void aProblemFromAnotherSourceFlowsIntoHealthWithItsSeverity() {
        runner.withUserConfiguration(NoHeartbeatClient.class, StoppedConsumer.class).withPropertyValues(READINESS)
                .run(context -> {
                    Health health = context.getBean(CdcInvalidationHealthIndicator.class).health(true);
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(problems(health)).anySatisfy(problem -> assertThat(problem)
                            .containsEntry("code", "consumer-stopped"));
                    assertThat(readinessHttpCode(context)).isEqualTo(503);
                });
        runner.withUserConfiguration(NoHeartbeatClient.class, StoppedConsumer.class)
                .withPropertyValues(READINESS, "cdc.invalidation.health.problem-status=OUT_OF_SERVICE")
                .run(context -> assertThat(context.getBean(CdcInvalidationHealthIndicator.class).health(false)
                        .getStatus()).isEqualTo(Status.OUT_OF_SERVICE));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, String>> problems(Health health) {
        return (List<Map<String, String>>) health.getDetails().get("problems");
    }

    private static Status readinessStatus(AssertableApplicationContext context) {
        // What SpringApplication does once started; a context runner never does, and readinessState would refuse.
        AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
        return context.getBean(HealthEndpoint.class).healthForPath("readiness").getStatus();
    }

    private static int readinessHttpCode(AssertableApplicationContext context) {
        HealthEndpointGroup group = context.getBean(HealthEndpointGroups.class).get("readiness");
        return group.getHttpCodeStatusMapper().getStatusCode(readinessStatus(context));
    }

    /** The bound cdc.invalidation.* settings, as an application builds a client of its own from them. */
    private static InvalidationClientConfig.Builder config(CdcInvalidationProperties properties) {
        return ClientSettings.read(properties.flatSettings()).requireTopics(true)
                .positionCheckInterval(Duration.ofMillis(20))
                .cache(CacheDefinition.builder("coupons").table("coupon_db.copon").keyColumns("id").build());
    }

    @Configuration(proxyBeanMethods = false)
    static class MissingTopicClient {
        @Bean
        InvalidationClient invalidationClient(CdcInvalidationProperties properties) {
            // "copon": the table is misspelled, so its topic does not exist.
            return MockKafka.readyClient(config(properties).build(), Set.of("cdc.coupon_db.copon"));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NoHeartbeatClient {
        @Bean
        InvalidationClient invalidationClient(CdcInvalidationProperties properties) {
            return MockKafka.readyClient(config(properties).build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class StoppedConsumer {
        @Bean
        ClientProblemSource stoppedConsumer() {
            return client -> List.of(new ClientProblem(ClientProblem.Severity.REQUIRES_ACTION, "consumer-stopped",
                    "the consumer thread ended"));
        }
    }
}
