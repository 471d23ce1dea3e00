package dev.cdccache.client.hibernate;

import dev.cdccache.client.SourceDefinition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.hibernate.cache.spi.CacheKeysFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.metamodel.mapping.ForeignKeyDescriptor;
import org.hibernate.metamodel.mapping.TableDetails;
import org.hibernate.persister.collection.CollectionPersister;
import org.hibernate.persister.entity.EntityPersister;

/**
 * Reads from Hibernate's mapping metamodel which table changes evict which entries of each cached role, so
 * that nothing is configured per entity:
 *
 * <ul>
 *   <li><b>Entity hierarchy</b>: every table of every entity of the hierarchy (root, joined subclass and
 *       secondary tables) evicts the entry of the row's key columns, which hold the id.</li>
 *   <li><b>Collection</b>: the table holding the collection's foreign key (the element table of a one-to-many,
 *       the join table of a many-to-many, the collection table of an element collection) evicts the entry of
 *       the owner the row points to, before and after the change (a row moving between owners evicts both);
 *       the owner's table evicts its own entry too (a cascading delete in the database writes no row events
 *       for the children). A many-to-many ordered by columns of the element table is evicted whole on changes
 *       of that table, since the owners of an element row cannot be told from it.</li>
 *   <li><b>Natural ids</b>: evicted whole on any change of the hierarchy's tables.</li>
 * </ul>
 *
 * A key whose columns are not integers or text (dates, UUIDs, decimals) cannot be matched with the change
 * events' JSON: such a role is evicted whole on any change of its tables.
 */
final class MetamodelBindings {

    /** How one role's storage is fed by the change stream. */
    record RoleBinding(RoleStorage storage, String description, List<SourceDefinition> sources,
            Set<String> requiredTables, UnaryOperator<Object> keys, boolean byKey) {
    }

    private final SessionFactoryImplementor factory;
    private final String database;

    MetamodelBindings(SessionFactoryImplementor factory, String database) {
        this.factory = factory;
        this.database = database;
    }

    /** {@code database.table} of a table expression as Hibernate renders it (quoted, catalog-qualified or not). */
    String qualify(String tableExpression) {
        String plain = tableExpression.replace("`", "").replace("\"", "").replace("[", "").replace("]", "").strip();
        String[] parts = plain.split("\\.");
        if (parts.length == 1) {
            return database + "." + parts[0];
        }
        return parts[parts.length - 2] + "." + parts[parts.length - 1];
    }

    RoleBinding bind(RoleStorage storage, CdcRegionFactory.RoleKind kind, CacheKeysFactory keysFactory) {
        return switch (kind) {
            case ENTITY -> entity(storage, keysFactory);
            case COLLECTION -> collection(storage, keysFactory);
            case NATURAL_ID -> naturalId(storage);
        };
    }

    private EntityPersister entityPersister(String name) {
        return factory.getMappingMetamodel().getEntityDescriptor(name);
    }

    /** Each table of the hierarchy of {@code root}, with its key columns. */
    private Map<String, List<String>> hierarchyTables(EntityPersister root) {
        Map<String, List<String>> tables = new LinkedHashMap<>();
        factory.getMappingMetamodel().forEachEntityDescriptor(persister -> {
            if (persister.getRootEntityDescriptor().getEntityName().equals(root.getEntityName())) {
                persister.forEachTableDetails(table -> tables.putIfAbsent(qualify(table.getTableName()),
                        columns(table.getKeyDetails())));
            }
        });
        return tables;
    }

    private static List<String> columns(TableDetails.KeyDetails key) {
        List<String> columns = new ArrayList<>();
        key.forEachKeyColumn((position, column) -> columns.add(unquote(column.getColumnName())));
        return columns;
    }

    private static String unquote(String column) {
        return column.replace("`", "").replace("\"", "").strip();
    }

    private RoleBinding entity(RoleStorage storage, CacheKeysFactory keysFactory) {
        EntityPersister root = entityPersister(storage.name());
        TableDetails.KeyDetails idKey = root.getIdentifierTableDetails().getKeyDetails();
        List<Class<?>> types = new ArrayList<>();
        idKey.forEachKeyColumn((position, column) -> types.add(column.getJdbcMapping().getJdbcJavaType()
                .getJavaTypeClass()));
        KeyNormalizer normalizer = KeyNormalizer.of(types, (id, into) ->
                idKey.breakDownKeyJdbcValues(id, (value, column) -> into.add(value), null));
        Map<String, List<String>> tables = hierarchyTables(root);
        String description = "entity " + root.getEntityName();
        if (normalizer == null) {
            return evictAllOf(storage, description + " (id columns of type " + types + ")", tables.keySet(),
                    keysFactory::getEntityId);
        }
        List<SourceDefinition> sources = new ArrayList<>();
        tables.forEach((table, columns) -> sources.add(SourceDefinition.keys(table, columns)));
        return new RoleBinding(storage, description, sources, tables.keySet(),
                key -> normalizer.normalize(keysFactory.getEntityId(key)), true);
    }

    private RoleBinding collection(RoleStorage storage, CacheKeysFactory keysFactory) {
        CollectionPersister persister = factory.getMappingMetamodel().getCollectionDescriptor(storage.name());
        ForeignKeyDescriptor fk = persister.getAttributeMapping().getKeyDescriptor();
        List<String> keyColumns = new ArrayList<>();
        List<Class<?>> types = new ArrayList<>();
        fk.getKeyPart().forEachSelectable((i, selectable) -> {
            keyColumns.add(unquote(selectable.getSelectionExpression()));
            types.add(selectable.getJdbcMapping().getJdbcJavaType().getJavaTypeClass());
        });
        List<String> ownerColumns = new ArrayList<>();
        fk.getTargetPart().forEachSelectable((i, selectable) -> ownerColumns.add(
                unquote(selectable.getSelectionExpression())));
        String keyTable = qualify(fk.getKeyTable());
        String ownerTable = qualify(fk.getTargetTable());
        String description = "collection " + storage.name();
        KeyNormalizer normalizer = KeyNormalizer.of(types, (key, into) ->
                fk.getKeyPart().breakDownJdbcValues(key, (i, value, selectable) -> into.add(value), null));
        Set<String> tables = new LinkedHashSet<>(List.of(keyTable, ownerTable));
        if (normalizer == null) {
            return evictAllOf(storage, description + " (key columns of type " + types + ")", tables,
                    keysFactory::getCollectionId);
        }
        List<SourceDefinition> sources = new ArrayList<>();
        sources.add(SourceDefinition.keys(keyTable, keyColumns));
        if (!ownerTable.equals(keyTable)) {
            sources.add(SourceDefinition.keys(ownerTable, ownerColumns));
        }
        if (persister.isManyToMany() && persister.hasManyToManyOrdering()) {
            for (String elementTable : hierarchyTables(persister.getElementPersister().getRootEntityDescriptor()
                    .getEntityPersister()).keySet()) {
                sources.add(SourceDefinition.evictAll(elementTable));
            }
        }
        return new RoleBinding(storage, description, sources, Set.of(keyTable),
                key -> normalizer.normalize(keysFactory.getCollectionId(key)), true);
    }

    private RoleBinding naturalId(RoleStorage storage) {
        String entity = storage.name().substring(0, storage.name().length() - "#natural-id".length());
        EntityPersister root = entityPersister(entity);
        return evictAllOf(storage, "natural ids of " + root.getEntityName(), hierarchyTables(root).keySet(),
                UnaryOperator.identity());
    }

    private static RoleBinding evictAllOf(RoleStorage storage, String description, Set<String> tables,
            UnaryOperator<Object> keys) {
        List<SourceDefinition> sources = new ArrayList<>();
        tables.forEach(table -> sources.add(SourceDefinition.evictAll(table)));
        return new RoleBinding(storage, description, sources, tables, keys, false);
    }

    /** Every table any entity or collection maps to, by each query space naming it. */
    Map<String, String> querySpaces() {
        Map<String, String> spaces = new LinkedHashMap<>();
        factory.getMappingMetamodel().forEachEntityDescriptor(persister -> {
            for (Object space : persister.getQuerySpaces()) {
                spaces.putIfAbsent(space.toString(), qualify(space.toString()));
            }
        });
        factory.getMappingMetamodel().forEachCollectionDescriptor(persister -> {
            for (String space : persister.getCollectionSpaces()) {
                spaces.putIfAbsent(space, qualify(space));
            }
        });
        return spaces;
    }
}
