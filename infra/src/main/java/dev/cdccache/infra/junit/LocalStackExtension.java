package dev.cdccache.infra.junit;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.kafka.KafkaBroker;
import dev.cdccache.infra.mariadb.MariaDbServer;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 access to the JVM-wide {@link LocalStack#shared() shared stack}: declare a parameter of type
 * {@link LocalStack}, {@link MariaDbServer} or {@link KafkaBroker} in a test, a constructor or a
 * lifecycle method. The stack starts on first use and stops when the test JVM exits.
 *
 * <pre>{@code
 * @ExtendWith(LocalStackExtension.class)
 * class SomethingIT {
 *     @Test
 *     void works(MariaDbServer db, KafkaBroker kafka) { ... }
 * }
 * }</pre>
 */
public final class LocalStackExtension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == LocalStack.class || type == MariaDbServer.class || type == KafkaBroker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        LocalStack stack = LocalStack.shared();
        if (type == MariaDbServer.class) {
            return stack.mariaDb();
        }
        if (type == KafkaBroker.class) {
            return stack.kafka();
        }
        return stack;
    }
}
