package dev.cdccache.client.parsing;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** What tests expect of events parsed with fewer columns. */
public final class ChangeEvents {

    private ChangeEvents() {
    }

    /** {@code event} as it reads with only {@code columns} kept in its row images: the other fields unchanged. */
    public static ChangeEvent keepingOnly(ChangeEvent event, RowColumns columns) {
        return new ChangeEvent(event.topic(), event.partition(), event.offset(), event.operation(),
                keepingOnly(event.before(), columns), keepingOnly(event.after(), columns), event.database(),
                event.table(), event.sourceTimestampMillis(), event.eventTimestampMillis(), event.truncatedColumns(),
                event.gtid(), event.coalesced());
    }

    private static JsonNode keepingOnly(JsonNode row, RowColumns columns) {
        if (row == null) {
            return null;
        }
        ObjectNode kept = ((ObjectNode) row).deepCopy();
        List<String> dropped = new ArrayList<>();
        for (String name : kept.propertyNames()) {
            if (!columns.keeps(name)) {
                dropped.add(name);
            }
        }
        kept.remove(dropped);
        return kept;
    }
}
