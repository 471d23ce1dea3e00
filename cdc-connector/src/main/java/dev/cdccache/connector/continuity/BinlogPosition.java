package dev.cdccache.connector.continuity;

import java.util.Objects;

/**
 * A place in a server's binlog: the server, a file and a byte offset in it. Files of one server are named
 * {@code <base>.<number>}, the numbers rising, so two places of one server compare by number, then offset; places of
 * two servers do not compare.
 *
 * @param serverId the {@code @@server_id} of the server whose binlog it is (the one that wrote the event there)
 * @param file the binlog file's name, as {@code SHOW BINARY LOGS} lists it
 * @param offset a byte offset in that file (where an event starts, or where a reader resumes)
 */
public record BinlogPosition(long serverId, String file, long offset) {

    public BinlogPosition {
        Objects.requireNonNull(file, "file");
    }

    /**
     * Whether this place is before {@code other} in the same binlog. False when that cannot be told (another server,
     * files of another base name, or without a number).
     */
    public boolean isBefore(BinlogPosition other) {
        if (serverId != other.serverId) {
            return false;
        }
        int dot = file.lastIndexOf('.');
        int otherDot = other.file.lastIndexOf('.');
        if (dot < 0 || otherDot < 0 || !file.substring(0, dot).equals(other.file.substring(0, otherDot))) {
            return false;
        }
        try {
            long number = Long.parseLong(file.substring(dot + 1));
            long otherNumber = Long.parseLong(other.file.substring(otherDot + 1));
            return number < otherNumber || number == otherNumber && offset < other.offset;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The place right after this one: an event starting here starts before it. */
    public BinlogPosition next() {
        return new BinlogPosition(serverId, file, offset + 1);
    }

    /** The later of two places of one binlog; {@code other} when they cannot be compared. */
    public BinlogPosition laterOf(BinlogPosition other) {
        return other.isBefore(this) ? this : other;
    }

    @Override
    public String toString() {
        return file + ":" + offset;
    }
}
