package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.InvalidationClient;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter states the Spring Boot it needs (docs/client.md) and refuses older ones with the fix. */
class SpringBootRequirementTest {

    @Test
    void springBoot3IsRefusedWithAMessageThatSaysWhatToDo() {
        assertThatThrownBy(() -> SpringBootRequirement.check("3.5.16", false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs Spring Boot 4.x")
                .hasMessageContaining("found 3.5.16")
                .hasMessageContaining("invalidation-client-core without the starter");
        assertThatThrownBy(() -> SpringBootRequirement.check("2.7.18", false)).hasMessageContaining("found 2.7.18");
    }

    @Test
    void anUnknownVersionIsDecidedByTheBoot4Api() {
        assertThatCode(() -> SpringBootRequirement.check(null, true)).doesNotThrowAnyException();
        assertThatThrownBy(() -> SpringBootRequirement.check(null, false)).hasMessageContaining("an older version");
    }

    @Test
    void theBootThisBuildRunsOnIsAcceptedAndTheClientIsConfigured() {
        assertThat(SpringBootVersion.getVersion()).startsWith(SpringBootRequirement.REQUIRED_MAJOR + ".");
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
                .withPropertyValues("cdc.invalidation.bootstrap-servers=127.0.0.1:1", "cdc.invalidation.await-ready=0s",
                        "cdc.invalidation.caches.coupons.table=coupon_db.coupon",
                        "cdc.invalidation.caches.coupons.key-columns=id")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(InvalidationClient.class);
                    assertThat(context.getBean(InvalidationClient.class).config().commitLagByTable())
                            .as("the coarse source.ts_ms lag is off by default").isFalse();
                });
    }

    @Test
    void theCommitLagByTableCanBeSwitchedOn() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
                .withPropertyValues("cdc.invalidation.bootstrap-servers=127.0.0.1:1", "cdc.invalidation.await-ready=0s",
                        "cdc.invalidation.commit-lag-by-table=true",
                        "cdc.invalidation.caches.coupons.table=coupon_db.coupon",
                        "cdc.invalidation.caches.coupons.key-columns=id")
                .run(context -> assertThat(context.getBean(InvalidationClient.class).config().commitLagByTable())
                        .isTrue());
    }
}
