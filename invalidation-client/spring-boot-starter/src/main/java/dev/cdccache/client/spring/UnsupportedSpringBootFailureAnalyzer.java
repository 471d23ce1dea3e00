package dev.cdccache.client.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an unsupported Spring Boot as a start-up message instead of a stack trace. It uses only API that Spring
 * Boot 3 and 4 share, because it must load on the Boot it rejects.
 */
class UnsupportedSpringBootFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedSpringBootException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedSpringBootException cause) {
        return new FailureAnalysis(
                "invalidation-client-spring-boot-starter needs Spring Boot " + SpringBootRequirement.REQUIRED_MAJOR
                        + ".x; this application runs " + cause.found() + ".",
                "Upgrade the application to Spring Boot 4, or replace the starter with invalidation-client-core, which"
                        + " has no Spring dependency (docs/client.md, 'Spring Boot 3'). To start without the client,"
                        + " set cdc.invalidation.enabled=false.",
                cause);
    }
}
