package dev.cdccache.client.keymapping;

import dev.cdccache.client.Internal;
import dev.cdccache.client.KeyNormalization;
import dev.cdccache.client.KeyType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * Derives the cache key of a row (a Debezium {@code before}/{@code after} object) from its key columns,
 * converted to the cache's {@link KeyType}. Immutable and thread-safe.
 */
@Internal
public final class KeyMapper {

    /** Longest numeric text converted; longer is no long anyway and would only cost CPU to look at. */
    private static final int MAX_NUMBER_TEXT = 64;

    private final List<String> columns;
    private final KeyType keyType;
    private final Function<List<Object>, Object> compositeKeyFactory;
    private final KeyNormalization normalization;

    public KeyMapper(List<String> columns, KeyType keyType, Function<List<Object>, Object> compositeKeyFactory) {
        this(columns, keyType, compositeKeyFactory, KeyNormalization.NONE);
    }

    /** @param normalization applied to a one-column key, as the cache applies it to the keys looked up */
    public KeyMapper(List<String> columns, KeyType keyType, Function<List<Object>, Object> compositeKeyFactory,
            KeyNormalization normalization) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("no key columns");
        }
        this.columns = List.copyOf(columns);
        this.keyType = keyType;
        this.compositeKeyFactory = compositeKeyFactory;
        this.normalization = normalization;
    }

    public List<String> columns() {
        return columns;
    }

    /** The key of {@code row}; throws if a column is missing or cannot be converted. */
    public Object keyOf(JsonNode row) throws KeyMappingException {
        boolean composite = keyType == KeyType.COMPOSITE || (keyType == KeyType.AUTO && columns.size() > 1);
        if (!composite) {
            return normalization.apply(convert(column(row, columns.get(0)), columns.get(0), keyType));
        }
        List<Object> components = new ArrayList<>(columns.size());
        for (String column : columns) {
            components.add(convert(column(row, column), column, KeyType.AUTO));
        }
        return compositeKeyFactory.apply(components);
    }

    private static JsonNode column(JsonNode row, String column) throws KeyMappingException {
        JsonNode value = row.get(column);
        if (value == null || value.isMissingNode()) {
            throw KeyMappingException.missing(column);
        }
        if (value.isNull()) {
            throw new KeyMappingException("column '" + column + "' is null");
        }
        return value;
    }

    /** Converts one column value; public for the tests that pin the conversion table. */
    public static Object convert(JsonNode value, String column, KeyType type) throws KeyMappingException {
        switch (type) {
            case LONG:
                return toLong(value, column);
            case INTEGER: {
                long l = toLong(value, column);
                if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
                    throw new KeyMappingException("column '" + column + "' value " + l + " is out of int range");
                }
                return (int) l;
            }
            case STRING:
                if (value.isString()) {
                    return value.asString();
                }
                if (value.isNumber() || value.isBoolean()) {
                    return value.toString();
                }
                throw wrongType(value, column, "a string");
            case AUTO:
            case COMPOSITE:
            default:
                if (value.isIntegralNumber()) {
                    OptionalLong exact = value.longValueOpt();
                    if (exact.isPresent()) {
                        return exact.getAsLong();
                    }
                    throw new KeyMappingException("column '" + column + "' value " + abbreviate(value.toString())
                            + " does not fit a long");
                }
                if (value.isString()) {
                    return value.asString();
                }
                if (value.isBoolean()) {
                    return value.asBoolean();
                }
                throw wrongType(value, column, "an integer, string or boolean");
        }
    }

    private static long toLong(JsonNode value, String column) throws KeyMappingException {
        if (value.isIntegralNumber()) {
            // Non-throwing accessor: a JSON integer beyond a long is unmappable, not a consumer crash.
            OptionalLong exact = value.longValueOpt();
            if (exact.isPresent()) {
                return exact.getAsLong();
            }
            throw new KeyMappingException("column '" + column + "' value " + abbreviate(value.toString())
                    + " does not fit a long");
        }
        if (value.isString()) {
            String text = value.asString().trim();
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                // DECIMAL columns arrive as strings such as "42" or "42.00".
                OptionalLong exact = text.length() <= MAX_NUMBER_TEXT ? exactLong(parseDecimal(text)) : OptionalLong.empty();
                if (exact.isPresent()) {
                    return exact.getAsLong();
                }
                throw new KeyMappingException("column '" + column + "' value \"" + abbreviate(text)
                        + "\" is not an integer within the long range");
            }
        }
        if (value.isNumber()) {
            // A JSON float: Infinity (1e400 as a double) has no decimal value, hence the Opt accessor.
            OptionalLong exact = exactLong(value.decimalValueOpt().orElse(null));
            if (exact.isPresent()) {
                return exact.getAsLong();
            }
            throw new KeyMappingException("column '" + column + "' value " + abbreviate(value.toString())
                    + " is not an integer within the long range");
        }
        throw wrongType(value, column, "an integer");
    }

    private static BigDecimal parseDecimal(String text) {
        try {
            return new BigDecimal(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * The long value of {@code decimal} if it is an integer within the long range. Checks the magnitude from
     * precision and scale BEFORE any conversion: {@code toBigIntegerExact()} of {@code 1e500000000} would
     * compute a number of half a billion digits (minutes of CPU, hundreds of MB) and {@code 1e-500000000}
     * a division of that size.
     */
    static OptionalLong exactLong(BigDecimal decimal) {
        if (decimal == null) {
            return OptionalLong.empty();
        }
        if (decimal.signum() == 0) {
            return OptionalLong.of(0);
        }
        // Cheap: the unscaled value has at most MAX_NUMBER_TEXT digits (or a double's 17).
        BigDecimal stripped = decimal.stripTrailingZeros();
        int scale = stripped.scale();
        if (scale > 0) {
            return OptionalLong.empty(); // a fraction remains
        }
        // Digits before the decimal point: precision - scale; a long has at most 19.
        if ((long) stripped.precision() - scale > 19) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(stripped.longValueExact());
        } catch (ArithmeticException e) {
            return OptionalLong.empty();
        }
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...(" + text.length() + " chars)";
    }

    private static KeyMappingException wrongType(JsonNode value, String column, String expected) {
        return new KeyMappingException("column '" + column + "' is " + value.getNodeType().name().toLowerCase()
                + ", expected " + expected);
    }
}
