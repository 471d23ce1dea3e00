package dev.cdccache.coupon.caching;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Switches the invalidation client off unless {@code coupon.cache.mode} is {@code local}: the modes
 * {@code none} and {@code redis} must not consume change topics (nor need Kafka at all). An explicit
 * {@code cdc.invalidation.enabled} still wins, since this source is added with the lowest precedence.
 */
public class CacheModeEnvironmentPostProcessor implements EnvironmentPostProcessor {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        String mode = environment.getProperty("coupon.cache.mode", "local");
        if (!mode.strip().equalsIgnoreCase("local")) {
            environment.getPropertySources().addLast(new MapPropertySource("couponCacheMode",
                    Map.of("cdc.invalidation.enabled", "false")));
        }
    }
}
