package dev.cdccache.connector.testing;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.Handle;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;

/**
 * What a library's bytecode links against in a class the connector provides in the library's place (a class of
 * the same name that comes first on the class path), and whether the stand-in provides it. The JVM resolves a
 * call by class, name and descriptor when it first runs it, so a stand-in that lacks one fails with
 * {@link NoSuchMethodError} only on that path; these checks find it in a unit test instead.
 */
public final class LibraryLinkage {

    private LibraryLinkage() {
    }

    /**
     * One use of a class by library code.
     *
     * @param kind {@code new}, {@code extends}, a field or invoke instruction ({@code invokevirtual}, {@code getfield},
     *     ...) or {@code handle} (a method reference)
     * @param member the member's name ({@code <init>} for constructors), empty for {@code new} and {@code extends}
     * @param descriptor the member's JVM descriptor, empty for {@code new} and {@code extends}
     * @param user the library class that uses it, internal name
     */
    public record Use(String kind, String member, String descriptor, String user) implements Comparable<Use> {

        @Override
        public int compareTo(Use o) {
            return toString().compareTo(o.toString());
        }

        @Override
        public String toString() {
            return kind + " " + member + descriptor + " (in " + user + ")";
        }
    }

    /** The jars of the test class path whose file name starts with {@code prefix}, e.g. {@code debezium-}. */
    public static List<Path> classPathJars(String prefix) {
        List<Path> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry);
            if (path.getFileName() != null && path.getFileName().toString().startsWith(prefix) && entry.endsWith(".jar")) {
                jars.add(path);
            }
        }
        return jars;
    }

    /**
     * Every use of {@code target} in the class files of {@code jars}, except those inside {@code target} itself and
     * its nested classes (the library's own copy of the class, which the stand-in replaces).
     */
    public static Set<Use> usesOf(Class<?> target, List<Path> jars) throws IOException {
        String name = Type.getInternalName(target);
        Set<Use> uses = new TreeSet<>();
        for (Path jar : jars) {
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                Enumeration<? extends ZipEntry> entries = zip.entries();
                while (entries.hasMoreElements()) {
                    ZipEntry entry = entries.nextElement();
                    String file = entry.getName();
                    if (!file.endsWith(".class") || file.equals(name + ".class") || file.startsWith(name + "$")) {
                        continue;
                    }
                    try (InputStream in = zip.getInputStream(entry)) {
                        new ClassReader(in).accept(new UseCollector(name, uses), ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
                    }
                }
            }
        }
        return uses;
    }

    /** The uses that {@code standIn} does not satisfy: a member missing, of another kind (static or not), or not accessible. */
    public static List<Use> unsatisfied(Class<?> standIn, Set<Use> uses) {
        List<Use> unsatisfied = new ArrayList<>();
        for (Use use : uses) {
            if (!satisfies(standIn, use)) {
                unsatisfied.add(use);
            }
        }
        return unsatisfied;
    }

    private static boolean satisfies(Class<?> standIn, Use use) {
        int classModifiers = standIn.getModifiers();
        return switch (use.kind()) {
            case "new" -> !standIn.isInterface() && !Modifier.isAbstract(classModifiers) && Modifier.isPublic(classModifiers);
            case "extends" -> !Modifier.isFinal(classModifiers);
            case "getfield", "putfield", "getstatic", "putstatic" -> field(standIn, use)
                    .filter(f -> Modifier.isStatic(f.getModifiers()) == use.kind().endsWith("static"))
                    .filter(f -> accessible(f.getModifiers(), standIn, use)).isPresent();
            default -> executable(standIn, use)
                    .filter(e -> Modifier.isStatic(e.getModifiers()) == use.kind().equals("invokestatic"))
                    .filter(e -> accessible(e.getModifiers(), standIn, use)).isPresent();
        };
    }

    private static java.util.Optional<Field> field(Class<?> type, Use use) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getName().equals(use.member()) && Type.getDescriptor(f.getType()).equals(use.descriptor())) {
                    return java.util.Optional.of(f);
                }
            }
        }
        return java.util.Optional.empty();
    }

    private static java.util.Optional<Executable> executable(Class<?> type, Use use) {
        if (use.member().equals("<init>")) {
            for (Constructor<?> c : type.getDeclaredConstructors()) {
                if (Type.getConstructorDescriptor(c).equals(use.descriptor())) {
                    return java.util.Optional.of(c);
                }
            }
            return java.util.Optional.empty();
        }
        List<Class<?>> types = new ArrayList<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            types.add(c);
            types.addAll(List.of(c.getInterfaces()));
        }
        for (Class<?> c : types) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(use.member()) && Type.getMethodDescriptor(m).equals(use.descriptor())) {
                    return java.util.Optional.of(m);
                }
            }
        }
        return java.util.Optional.empty();
    }

    /** Public members are reachable from anywhere; the library's classes are in other packages or subclasses. */
    private static boolean accessible(int modifiers, Class<?> standIn, Use use) {
        if (Modifier.isPublic(modifiers)) {
            return true;
        }
        String userPackage = use.user().contains("/") ? use.user().substring(0, use.user().lastIndexOf('/')) : "";
        boolean samePackage = userPackage.equals(Type.getInternalName(standIn).substring(0,
                Type.getInternalName(standIn).lastIndexOf('/')));
        return !Modifier.isPrivate(modifiers) && (samePackage || Modifier.isProtected(modifiers));
    }

    /** Collects the uses of one class by the class being read. */
    private static final class UseCollector extends ClassVisitor {
        private final String target;
        private final Set<Use> uses;
        private String user;

        UseCollector(String target, Set<Use> uses) {
            super(Opcodes.ASM9);
            this.target = target;
            this.uses = uses;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
            user = name;
            if (target.equals(superName)) {
                uses.add(new Use("extends", "", "", user));
            }
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            return new MethodVisitor(Opcodes.ASM9) {
                @Override
                public void visitTypeInsn(int opcode, String type) {
                    if (opcode == Opcodes.NEW && target.equals(type)) {
                        uses.add(new Use("new", "", "", user));
                    }
                }

                @Override
                public void visitFieldInsn(int opcode, String owner, String field, String fieldDescriptor) {
                    if (target.equals(owner)) {
                        uses.add(new Use(opcodeName(opcode), field, fieldDescriptor, user));
                    }
                }

                @Override
                public void visitMethodInsn(int opcode, String owner, String method, String methodDescriptor, boolean isInterface) {
                    if (target.equals(owner)) {
                        uses.add(new Use(opcodeName(opcode), method, methodDescriptor, user));
                    }
                }

                @Override
                public void visitInvokeDynamicInsn(String method, String methodDescriptor, Handle bootstrap, Object... arguments) {
                    for (Object argument : arguments) {
                        if (argument instanceof Handle handle && target.equals(handle.getOwner())) {
                            uses.add(new Use(handle.getTag() == Opcodes.H_INVOKESTATIC ? "invokestatic" : "handle",
                                    handle.getName(), handle.getDesc(), user));
                        }
                    }
                }
            };
        }

        private static String opcodeName(int opcode) {
            return switch (opcode) {
                case Opcodes.GETFIELD -> "getfield";
                case Opcodes.PUTFIELD -> "putfield";
                case Opcodes.GETSTATIC -> "getstatic";
                case Opcodes.PUTSTATIC -> "putstatic";
                case Opcodes.INVOKESTATIC -> "invokestatic";
                case Opcodes.INVOKESPECIAL -> "invokespecial";
                case Opcodes.INVOKEINTERFACE -> "invokeinterface";
                default -> "invokevirtual";
            };
        }
    }
}
