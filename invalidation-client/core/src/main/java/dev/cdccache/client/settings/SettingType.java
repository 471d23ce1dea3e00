package dev.cdccache.client.settings;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The type of a setting's value and how a flat value becomes one: either already of the type (a front end that
 * bound it, e.g. Spring Boot), or text as properties files and Hibernate's configuration carry it. The accepted
 * text forms are Spring Boot's, so a value means the same in {@code application.yml} and in a Hibernate property.
 *
 * @param <T> the Java type of the value
 */
final class SettingType<T> {

    private static final Pattern AMOUNT = Pattern.compile("^([+-]?\\d+)([a-zA-Z]{0,2})$");

    static final SettingType<String> STRING = new SettingType<>(String.class, value -> value.toString().strip(),
            Object::toString);
    /** Text taken as given: a password may begin or end with a space. */
    static final SettingType<String> SECRET = new SettingType<>(String.class, Object::toString, value -> "******");
    static final SettingType<Boolean> BOOLEAN = new SettingType<>(Boolean.class, SettingType::toBoolean,
            Object::toString);
    static final SettingType<Duration> DURATION = new SettingType<>(Duration.class, SettingType::toDuration,
            SettingType::formatDuration);
    /** A data size such as {@code 64KB} or {@code 1MB} (1 KB = 1024 bytes), as a number of bytes. */
    static final SettingType<Integer> BYTES = new SettingType<>(Integer.class, SettingType::toBytes,
            SettingType::formatBytes);
    /** A whole number such as {@code 1000}. */
    static final SettingType<Integer> INTEGER = new SettingType<>(Integer.class, SettingType::toInteger,
            Object::toString);
    static final SettingType<Double> NUMBER = new SettingType<>(Double.class, SettingType::toDouble,
            value -> java.math.BigDecimal.valueOf(value).stripTrailingZeros().toPlainString());
    static final SettingType<Path> PATH = new SettingType<>(Path.class,
            value -> value instanceof Path path ? path : Path.of(value.toString().strip()), Object::toString);
    /** A list given as a list, or as text separated by commas. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static final SettingType<List<String>> LIST = new SettingType<>((Class) List.class, SettingType::toList,
            value -> String.join(",", value));

    private final Class<T> javaType;
    private final Function<Object, T> reader;
    private final Function<T, String> formatter;

    private SettingType(Class<T> javaType, Function<Object, T> reader, Function<T, String> formatter) {
        this.javaType = javaType;
        this.reader = reader;
        this.formatter = formatter;
    }

    /** An enum type; text is matched ignoring case, with {@code -} for {@code _} ({@code serve-stale}). */
    static <E extends Enum<E>> SettingType<E> of(Class<E> type) {
        return new SettingType<>(type, value -> toEnum(type, value), SettingType::formatEnum);
    }

    Class<T> javaType() {
        return javaType;
    }

    /**
     * The value {@code value} stands for.
     *
     * @throws IllegalArgumentException whose message says what the value must look like
     */
    T read(Object value) {
        if (javaType.isInstance(value) && javaType != String.class && javaType != List.class) {
            return javaType.cast(value);
        }
        return reader.apply(value);
    }

    /** The value as the reference documentation writes it. */
    String format(T value) {
        return formatter.apply(value);
    }

    private static Boolean toBoolean(Object value) {
        String text = value.toString().strip();
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.valueOf(text);
        }
        throw new IllegalArgumentException("must be true or false, was '" + value + "'");
    }

    private static Duration toDuration(Object value) {
        String text = value.toString().strip();
        try {
            if (text.startsWith("P") || text.startsWith("p") || text.startsWith("-P")) {
                return Duration.parse(text.toUpperCase(Locale.ROOT));
            }
            Matcher m = AMOUNT.matcher(text);
            if (m.matches()) {
                long amount = Long.parseLong(m.group(1));
                switch (m.group(2).toLowerCase(Locale.ROOT)) {
                    case "ns": return Duration.ofNanos(amount);
                    case "us": return Duration.ofNanos(Math.multiplyExact(amount, 1000L));
                    case "", "ms": return Duration.ofMillis(amount);
                    case "s": return Duration.ofSeconds(amount);
                    case "m": return Duration.ofMinutes(amount);
                    case "h": return Duration.ofHours(amount);
                    case "d": return Duration.ofDays(amount);
                    default: break;
                }
            }
        } catch (DateTimeParseException | ArithmeticException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException("must be a duration such as 500ms, 5s or PT5S, was '" + value + "'");
    }

    private static String formatDuration(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        long millis = duration.toMillis();
        if (millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    private static Integer toBytes(Object value) {
        long bytes;
        if (value instanceof Number number) {
            bytes = number.longValue();
        } else {
            Matcher m = AMOUNT.matcher(value.toString().strip());
            if (!m.matches()) {
                throw new IllegalArgumentException("must be a size such as 512KB or 1MB, was '" + value + "'");
            }
            long unit = switch (m.group(2).toUpperCase(Locale.ROOT)) {
                case "", "B" -> 1L;
                case "KB" -> 1L << 10;
                case "MB" -> 1L << 20;
                case "GB" -> 1L << 30;
                case "TB" -> 1L << 40;
                default -> throw new IllegalArgumentException("must be a size such as 512KB or 1MB (units B, KB, MB,"
                        + " GB), was '" + value + "'");
            };
            try {
                bytes = Math.multiplyExact(Long.parseLong(m.group(1)), unit);
            } catch (ArithmeticException e) {
                bytes = Long.MAX_VALUE;
            }
        }
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("must be at most 2GB, was '" + value + "'");
        }
        return (int) bytes;
    }

    private static String formatBytes(Integer bytes) {
        if (bytes % (1 << 20) == 0) {
            return bytes / (1 << 20) + "MB";
        }
        return bytes % 1024 == 0 ? bytes / 1024 + "KB" : bytes + "B";
    }

    private static Integer toInteger(Object value) {
        if (value instanceof Integer number) {
            return number;
        }
        try {
            return Integer.valueOf(value.toString().strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a whole number such as 1000, was '" + value + "'");
        }
    }

    private static Double toDouble(Object value) {
        if (value instanceof Number number) {
            return number.doubleValue();
        }
        try {
            return Double.valueOf(value.toString().strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a number such as 0.8, was '" + value + "'");
        }
    }

    private static List<String> toList(Object value) {
        Collection<?> items = value instanceof Collection<?> collection ? collection
                : Arrays.asList(value.toString().split(","));
        List<String> list = new ArrayList<>();
        for (Object item : items) {
            String text = item == null ? "" : item.toString().strip();
            if (!text.isEmpty()) {
                list.add(text);
            }
        }
        return List.copyOf(list);
    }

    private static <E extends Enum<E>> E toEnum(Class<E> type, Object value) {
        String name = value.toString().strip().replace('-', '_').toUpperCase(Locale.ROOT);
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equals(name)) {
                return constant;
            }
        }
        throw new IllegalArgumentException("must be one of " + Arrays.stream(type.getEnumConstants())
                .map(SettingType::formatEnum).collect(Collectors.joining(", ")) + ", was '" + value + "'");
    }

    private static String formatEnum(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
