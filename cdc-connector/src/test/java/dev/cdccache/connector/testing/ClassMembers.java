package dev.cdccache.connector.testing;

import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URL;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The non-private members of a class as comparable strings: lets a test check that the connector's copy of a
 * Debezium class still matches the class it replaces (loaded from Debezium's jar in a separate class loader).
 */
public final class ClassMembers {

    private ClassMembers() {
    }

    /** Fields, constructors and methods that are not private or synthetic, with generic types, and the supertypes. */
    public static Set<String> nonPrivate(Class<?> type) {
        Set<String> members = new TreeSet<>();
        Stream.of(type.getDeclaredFields()).filter(ClassMembers::visible)
                .forEach(f -> members.add(Modifier.toString(f.getModifiers()) + " " + f.getGenericType().getTypeName() + " " + f.getName()));
        Stream.of(type.getDeclaredConstructors()).filter(ClassMembers::visible)
                .forEach(c -> members.add(Modifier.toString(c.getModifiers()) + " <init>" + names(c.getGenericParameterTypes())));
        Stream.of(type.getDeclaredMethods()).filter(ClassMembers::visible).forEach(m -> members.add(signature(m)));
        Stream.of(type.getGenericInterfaces()).forEach(i -> members.add("implements " + i.getTypeName()));
        members.add("extends " + type.getGenericSuperclass().getTypeName());
        members.add("modifiers " + Modifier.toString(type.getModifiers()));
        return members;
    }

    /** The jars (or class folders) the given classes were loaded from, for a class loader of those alone. */
    public static URL[] locationsOf(Class<?>... classes) {
        return Arrays.stream(classes).map(ClassMembers::locationOf).distinct().toArray(URL[]::new);
    }

    public static URL locationOf(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    private static boolean visible(Member member) {
        return !Modifier.isPrivate(member.getModifiers()) && !member.isSynthetic();
    }

    private static String signature(Method m) {
        return Modifier.toString(m.getModifiers()) + " " + m.getGenericReturnType().getTypeName() + " " + m.getName()
                + names(m.getGenericParameterTypes()) + " throws " + names(m.getExceptionTypes());
    }

    private static String names(Type[] types) {
        return Arrays.toString(Arrays.stream(types).map(Type::getTypeName).toArray());
    }
}
