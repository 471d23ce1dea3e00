package dev.cdccache.coupon.caching;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.mock.env.MockEnvironment;

class CacheModeEnvironmentPostProcessorTest {

    private final CacheModeEnvironmentPostProcessor processor = new CacheModeEnvironmentPostProcessor();

    private MockEnvironment process(MockEnvironment environment) {
        processor.postProcessEnvironment(environment, new SpringApplication());
        return environment;
    }

    @Test
    void localModeLeavesTheInvalidationClientOn() {
        assertThat(process(new MockEnvironment()).getProperty("cdc.invalidation.enabled")).isNull();
        assertThat(process(new MockEnvironment().withProperty("coupon.cache.mode", "LOCAL"))
                .getProperty("cdc.invalidation.enabled")).isNull();
    }

    @Test
    void noneAndRedisModesSwitchTheInvalidationClientOff() {
        assertThat(process(new MockEnvironment().withProperty("coupon.cache.mode", "none"))
                .getProperty("cdc.invalidation.enabled")).isEqualTo("false");
        assertThat(process(new MockEnvironment().withProperty("coupon.cache.mode", "redis"))
                .getProperty("cdc.invalidation.enabled")).isEqualTo("false");
    }

    @Test
    void anExplicitSettingWins() {
        assertThat(process(new MockEnvironment().withProperty("coupon.cache.mode", "none")
                .withProperty("cdc.invalidation.enabled", "true")).getProperty("cdc.invalidation.enabled")).isEqualTo("true");
    }
}
