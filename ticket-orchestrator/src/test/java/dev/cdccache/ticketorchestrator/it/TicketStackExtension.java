package dev.cdccache.ticketorchestrator.it;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves {@link TicketStack} parameters with the one stack of this test JVM, started on first use and
 * closed (instances, then the connector) when the test run ends, before the shared MariaDB and Kafka stop.
 */
public final class TicketStackExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(TicketStackExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TicketStack.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE)
                .computeIfAbsent(TicketStack.class, type -> TicketStack.start(), TicketStack.class);
    }
}
