package dev.cdccache.client.position;

import dev.cdccache.client.cache.PersistenceContextReads;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;

/** A fenced replica connection whose {@code close()} also ends the hold its fence put on this thread's loads. */
final class HeldConnection {

    private HeldConnection() {
    }

    static Connection of(Connection target, PersistenceContextReads.Opening hold) {
        return (Connection) Proxy.newProxyInstance(HeldConnection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "equals":
                            return proxy == args[0];
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "toString":
                            return "held replica connection " + target;
                        default:
                            break;
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        if (method.getName().equals("close")) {
                            hold.close();
                        }
                    }
                });
    }
}
