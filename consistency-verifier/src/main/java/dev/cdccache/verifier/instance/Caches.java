package dev.cdccache.verifier.instance;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.verifier.schema.VerifierSchema;
import java.util.List;

/** The caches every verified client instance has, one per way an application caches rows. */
public final class Caches {

    /** Rows by primary key ({@code Long} -> {@code Item}, absences cached). */
    public static final String BY_ID = "itemById";
    /** Rows by the unique secondary key ({@code String} code -> {@code Item}). */
    public static final String BY_CODE = "itemByCode";
    /** Lists of rows by group ({@code Long} grp -> {@code List<Item>}), evicted by before and after. */
    public static final String BY_GROUP = "itemsByGroup";
    /** An aggregate over the whole table ({@code String} "all" -> {@code ItemStats}), evicted on any change. */
    public static final String STATS = "itemStats";
    /** The probe table, cached nowhere but subscribed so probe writes can be seen arriving. */
    public static final String PROBE = "probe";
    /** The only key of {@link #STATS}. */
    public static final String STATS_KEY = "all";

    private Caches() {
    }

    public static List<CacheDefinition> definitions() {
        String item = VerifierSchema.ITEM_TABLE;
        return List.of(
                CacheDefinition.builder(BY_ID).table(item).keyColumns("id").spec("maximumSize=20000").build(),
                CacheDefinition.builder(BY_CODE).table(item).keyColumns("code").spec("maximumSize=20000").build(),
                CacheDefinition.builder(BY_GROUP).table(item).keyColumns("grp").spec("maximumSize=1000").build(),
                CacheDefinition.builder(STATS).table(item).evictAll().spec("maximumSize=10").build(),
                CacheDefinition.builder(PROBE).table(VerifierSchema.PROBE_TABLE).keyColumns("id")
                        .spec("maximumSize=10").build());
    }
}
