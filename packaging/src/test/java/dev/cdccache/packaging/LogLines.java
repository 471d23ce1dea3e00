package dev.cdccache.packaging;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/** The log records of an application's log file (Spring Boot's console format), or the part written after an offset. */
final class LogLines {

    /** A record at WARN or ERROR: {@code 2026-11-23T12:00:00.000Z  WARN 1234 --- [...] logger : message}. */
    static final Pattern WARN_OR_ERROR = Pattern.compile("^\\d{4}-\\d\\d-\\d\\d[T ]\\S+\\s+(WARN|ERROR)\\s");
    /** The first line of a Kafka client's configuration dump ("ConsumerConfig values:" and the like). */
    static final Pattern KAFKA_CONFIG_DUMP = Pattern.compile("\\b(ConsumerConfig|ProducerConfig|AdminClientConfig) values:");

    private final List<String> lines;

    private LogLines(List<String> lines) {
        this.lines = lines;
    }

    static LogLines of(Path file) throws IOException {
        return new LogLines(read(file, 0));
    }

    /** The lines of {@code file} written after its first {@code offset} bytes. */
    static LogLines of(Path file, long offset) throws IOException {
        return new LogLines(read(file, offset));
    }

    List<String> matching(Pattern pattern) {
        return lines.stream().filter(line -> pattern.matcher(line).find()).toList();
    }

    private static List<String> read(Path file, long offset) throws IOException {
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length() - Math.min(offset, in.length());
            byte[] bytes = new byte[(int) length];
            in.seek(in.length() - length);
            in.readFully(bytes);
            return Arrays.asList(new String(bytes, StandardCharsets.UTF_8).split("\n"));
        }
    }
}
