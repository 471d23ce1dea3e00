package dev.cdccache.client.spring;

import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Checks the Spring Boot version before the context refreshes. The auto-configuration's own check comes too late on
 * Boot 3: by then a Boot 4 class missing from the classpath or a bean of another auto-configuration has already
 * failed, and the reason is the last "Caused by" of a long stack trace. An initializer is a Spring Framework
 * interface that Boot 3 and 4 both load from {@code spring.factories}, so it runs on either, early, and its failure
 * reaches {@link UnsupportedSpringBootFailureAnalyzer}.
 */
class SpringBootRequirementInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        if (context.getEnvironment().getProperty("cdc.invalidation.enabled", Boolean.class, Boolean.TRUE)) {
            SpringBootRequirement.check();
        }
    }
}
