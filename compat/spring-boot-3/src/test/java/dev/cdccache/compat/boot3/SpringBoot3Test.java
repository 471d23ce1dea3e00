package dev.cdccache.compat.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

@ExtendWith(OutputCaptureExtension.class)
class SpringBoot3Test {

    @SpringBootApplication
    static class Service {
    }

    @Test
    void theStarterStopsABoot3ApplicationWithAMessageThatSaysWhatToDoNotAStackTrace(CapturedOutput output) {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.");
        SpringApplication application = new SpringApplication(Service.class);
        application.setWebApplicationType(WebApplicationType.NONE);

        assertThatThrownBy(() -> application.run("--cdc.invalidation.bootstrap-servers=127.0.0.1:1"))
                .hasMessageContaining("needs Spring Boot 4");

        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("invalidation-client-spring-boot-starter needs Spring Boot 4.x; this application runs Spring Boot "
                        + SpringBootVersion.getVersion())
                .contains("replace the starter with invalidation-client-core")
                .doesNotContain("Application run failed") // Boot's words for a failure no analyzer explained
                .doesNotContain("\tat org.springframework");
    }

    @Test
    void aBoot3ApplicationStartsWithTheClientSwitchedOff() {
        SpringApplication application = new SpringApplication(Service.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.run("--cdc.invalidation.enabled=false").close();
    }

    @Test
    void theCoreRunsUnderBoot3sDependencyManagementWithTheKafkaClientTheDocsName() {
        assertThat(AppInfoParser.getVersion()).isEqualTo("4.1.2");
        InvalidationClientConfig config = InvalidationClientConfig.builder()
                .bootstrapServers("127.0.0.1:1") // nothing listens: the client runs and cannot prove freshness
                .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns(List.of("id")).build())
                .build();
        try (InvalidationClient client = new InvalidationClient(config)) {
            client.start();
            assertThat(client.awaitReady(Duration.ofSeconds(2))).isFalse();
            assertThat(client.status().fresh()).isFalse();
            client.<Long, String>cache("coupons").get(1L, id -> "loaded");
            assertThat(client.<Long, String>cache("coupons").get(1L, id -> "loaded again")).isNotNull();
        }
    }
}
