package dev.cdccache.connector.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A database server that answers from recordings: each query the code under test issues is matched against recorded
 * queries (regular expressions over the SQL, with a prepared statement's parameters filled in as quoted strings),
 * and the first match answers with its recorded rows or error. A query nothing matches fails the test, so a test
 * also proves which statements the code issues.
 *
 * <p>Why: no MySQL server can run in this build, yet the connector branches on the flavor in its start-up checks.
 * With the answers MySQL gives written down, each MySQL branch runs against what MySQL says, not against MariaDB.
 * Only the JDBC calls the connector makes are implemented; anything else throws.
 */
public final class RecordedServer {

    /** Rows of a recorded answer, every value as the text the driver would return ({@code null} for SQL NULL). */
    public record Rows(List<String> columns, List<List<String>> rows) {

        /** A result with these column labels and no rows yet. */
        public static Rows of(String... columns) {
            return new Rows(List.of(columns), new ArrayList<>());
        }

        /** Adds one row; values in column order. */
        public Rows row(String... values) {
            if (values.length != columns.size()) {
                throw new IllegalArgumentException(columns.size() + " columns, " + values.length + " values");
            }
            rows.add(Arrays.asList(values));
            return this;
        }
    }

    private record Answer(Pattern query, Function<String, Rows> rows, SQLException error) {
    }

    private final List<Answer> answers = new ArrayList<>();
    private final List<String> issued = new ArrayList<>();

    /** Answers queries matching {@code queryRegex} (case-insensitive, whole statement) with {@code rows}. */
    public RecordedServer answer(String queryRegex, Rows rows) {
        return answer(queryRegex, query -> rows);
    }

    /** Answers queries matching {@code queryRegex} with rows computed from the query, as a server would. */
    public RecordedServer answer(String queryRegex, Function<String, Rows> rows) {
        answers.add(new Answer(compile(queryRegex), rows, null));
        return this;
    }

    /** Refuses queries matching {@code queryRegex} with the server error a real server gives. */
    public RecordedServer refuse(String queryRegex, int errorCode, String sqlState, String message) {
        answers.add(new Answer(compile(queryRegex), null, new SQLException(message, sqlState, errorCode)));
        return this;
    }

    /** The statements issued so far, parameters filled in. */
    public List<String> issued() {
        return List.copyOf(issued);
    }

    /** A connection to this server. */
    public Connection connection() {
        return proxy(Connection.class, (self, method, args) -> switch (method.getName()) {
            case "createStatement" -> statement();
            case "prepareStatement" -> preparedStatement((String) args[0]);
            case "close" -> null;
            case "isClosed" -> false;
            default -> throw unsupported("Connection." + method.getName());
        });
    }

    private Statement statement() {
        return proxy(Statement.class, (self, method, args) -> switch (method.getName()) {
            case "executeQuery" -> answer((String) args[0]);
            case "close" -> null;
            default -> throw unsupported("Statement." + method.getName());
        });
    }

    private PreparedStatement preparedStatement(String sql) {
        Map<Integer, Object> parameters = new TreeMap<>();
        return proxy(PreparedStatement.class, (self, method, args) -> switch (method.getName()) {
            case "setString", "setLong", "setInt", "setObject" -> {
                parameters.put((Integer) args[0], args[1]);
                yield null;
            }
            case "executeQuery" -> answer(fillIn(sql, parameters));
            case "clearParameters" -> {
                parameters.clear();
                yield null;
            }
            case "close" -> null;
            default -> throw unsupported("PreparedStatement." + method.getName());
        });
    }

    private static String fillIn(String sql, Map<Integer, Object> parameters) {
        StringBuilder filled = new StringBuilder();
        int index = 0;
        for (char c : sql.toCharArray()) {
            if (c == '?') {
                Object value = parameters.get(++index);
                filled.append(value instanceof Number ? value.toString() : "'" + value + "'");
            } else {
                filled.append(c);
            }
        }
        return filled.toString();
    }

    private ResultSet answer(String sql) throws SQLException {
        String normalised = sql.replaceAll("\\s+", " ").trim();
        issued.add(normalised);
        for (Answer answer : answers) {
            if (answer.query().matcher(normalised).matches()) {
                if (answer.error() != null) {
                    SQLException e = answer.error();
                    throw new SQLException(e.getMessage(), e.getSQLState(), e.getErrorCode());
                }
                return resultSet(answer.rows().apply(normalised));
            }
        }
        throw new AssertionError("no recorded answer for: " + normalised);
    }

    private static ResultSet resultSet(Rows rows) {
        int[] at = {-1};
        boolean[] wasNull = {false};
        ResultSetMetaData meta = proxy(ResultSetMetaData.class, (self, method, args) -> switch (method.getName()) {
            case "getColumnCount" -> rows.columns().size();
            case "getColumnLabel", "getColumnName" -> rows.columns().get((Integer) args[0] - 1);
            default -> throw unsupported("ResultSetMetaData." + method.getName());
        });
        return proxy(ResultSet.class, (self, method, args) -> {
            switch (method.getName()) {
                case "next":
                    return ++at[0] < rows.rows().size();
                case "getMetaData":
                    return meta;
                case "wasNull":
                    return wasNull[0];
                case "close":
                    return null;
                case "getString", "getLong", "getInt", "getObject", "getBoolean":
                    if (at[0] < 0 || at[0] >= rows.rows().size()) {
                        throw new SQLException("no current row");
                    }
                    int column = args[0] instanceof Integer i ? i - 1 : columnIndex(rows, (String) args[0]);
                    String value = rows.rows().get(at[0]).get(column);
                    wasNull[0] = value == null;
                    return switch (method.getName()) {
                        case "getLong" -> value == null ? 0L : Long.parseLong(value);
                        case "getInt" -> value == null ? 0 : Integer.parseInt(value);
                        case "getBoolean" -> value != null && !value.equals("0");
                        default -> value;
                    };
                default:
                    throw unsupported("ResultSet." + method.getName());
            }
        });
    }

    private static int columnIndex(Rows rows, String label) throws SQLException {
        for (int c = 0; c < rows.columns().size(); c++) {
            if (rows.columns().get(c).equalsIgnoreCase(label)) {
                return c;
            }
        }
        throw new SQLException("Column '" + label + "' not found.", "S0022");
    }

    private static Pattern compile(String regex) {
        return Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    }

    private static UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException(what + " is not implemented by the recorded server");
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        InvocationHandler withObjectMethods = (self, method, args) -> switch (method.getName()) {
            case "hashCode" -> System.identityHashCode(self);
            case "equals" -> self == args[0];
            case "toString" -> "recorded " + type.getSimpleName();
            case "unwrap", "isWrapperFor" -> throw unsupported(type.getSimpleName() + "." + method.getName());
            default -> handler.invoke(self, method, args);
        };
        return (T) Proxy.newProxyInstance(RecordedServer.class.getClassLoader(), new Class<?>[] {type}, withObjectMethods);
    }
}
