package dev.cdccache.client.keymapping;

import dev.cdccache.client.KeyType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * Derives the cache key of a row (a Debezium {@code before}/{@code after} object) from its key columns,
 * converted to the cache's {@link KeyType}. Immutable and thread-safe.
 */
public final class KeyMapper {

    private final List<String> columns;
    private final KeyType keyType;
    private final Function<List<Object>, Object> compositeKeyFactory;

    public KeyMapper(List<String> columns, KeyType keyType, Function<List<Object>, Object> compositeKeyFactory) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("no key columns");
        }
        this.columns = List.copyOf(columns);
        this.keyType = keyType;
        this.compositeKeyFactory = compositeKeyFactory;
    }

    public List<String> columns() {
        return columns;
    }

    /** The key of {@code row}; throws if a column is missing or cannot be converted. */
    public Object keyOf(JsonNode row) throws KeyMappingException {
        boolean composite = keyType == KeyType.COMPOSITE || (keyType == KeyType.AUTO && columns.size() > 1);
        if (!composite) {
            return convert(column(row, columns.get(0)), columns.get(0), keyType);
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
            throw new KeyMappingException("column '" + column + "' is missing from the row");
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
                    if (value.canConvertToLong()) {
                        return value.asLong();
                    }
                    throw new KeyMappingException("column '" + column + "' value " + value + " does not fit a long");
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
            if (value.canConvertToLong()) {
                return value.asLong();
            }
            throw new KeyMappingException("column '" + column + "' value " + value + " does not fit a long");
        }
        if (value.isString()) {
            String text = value.asString().trim();
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                try {
                    // DECIMAL columns arrive as strings such as "42" or "42.00".
                    return new BigDecimal(text).toBigIntegerExact().longValueExact();
                } catch (ArithmeticException | NumberFormatException e2) {
                    throw new KeyMappingException("column '" + column + "' value \"" + text + "\" is not an integer");
                }
            }
        }
        if (value.isNumber()) {
            BigDecimal decimal = value.decimalValue();
            try {
                BigInteger exact = decimal.toBigIntegerExact();
                return exact.longValueExact();
            } catch (ArithmeticException e) {
                throw new KeyMappingException("column '" + column + "' value " + value + " is not an integer");
            }
        }
        throw wrongType(value, column, "an integer");
    }

    private static KeyMappingException wrongType(JsonNode value, String column, String expected) {
        return new KeyMappingException("column '" + column + "' is " + value.getNodeType().name().toLowerCase()
                + ", expected " + expected);
    }
}
