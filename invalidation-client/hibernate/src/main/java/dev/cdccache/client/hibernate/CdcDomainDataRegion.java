package dev.cdccache.client.hibernate;

import org.hibernate.cache.cfg.spi.CollectionDataCachingConfig;
import org.hibernate.cache.cfg.spi.DomainDataRegionBuildingContext;
import org.hibernate.cache.cfg.spi.DomainDataRegionConfig;
import org.hibernate.cache.cfg.spi.EntityDataCachingConfig;
import org.hibernate.cache.cfg.spi.NaturalIdDataCachingConfig;
import org.hibernate.cache.internal.SimpleCacheKeysFactory;
import org.hibernate.cache.spi.access.AccessType;
import org.hibernate.cache.spi.access.CollectionDataAccess;
import org.hibernate.cache.spi.access.EntityDataAccess;
import org.hibernate.cache.spi.access.NaturalIdDataAccess;
import org.hibernate.cache.spi.support.AbstractDomainDataRegion;
import org.hibernate.cache.spi.support.CollectionNonStrictReadWriteAccess;
import org.hibernate.cache.spi.support.CollectionReadOnlyAccess;
import org.hibernate.cache.spi.support.CollectionReadWriteAccess;
import org.hibernate.cache.spi.support.EntityNonStrictReadWriteAccess;
import org.hibernate.cache.spi.support.EntityReadOnlyAccess;
import org.hibernate.cache.spi.support.EntityReadWriteAccess;
import org.hibernate.cache.spi.support.NaturalIdNonStrictReadWriteAccess;
import org.hibernate.cache.spi.support.NaturalIdReadOnlyAccess;
import org.hibernate.cache.spi.support.NaturalIdReadWriteAccess;

/**
 * A Hibernate domain-data region whose every role (entity hierarchy, collection, natural ids) has a storage of
 * its own, so that a role's entries are keyed by the plain row key its change events evict. Hibernate's own
 * access strategies ({@code READ_ONLY}, {@code NONSTRICT_READ_WRITE}, {@code READ_WRITE}) run on top;
 * {@code TRANSACTIONAL} needs a JTA-aware cache and is rejected.
 */
final class CdcDomainDataRegion extends AbstractDomainDataRegion {

    CdcDomainDataRegion(DomainDataRegionConfig config, CdcRegionFactory factory,
            DomainDataRegionBuildingContext context) {
        // Keys are the plain ids (unless an application enforces another keys factory): no wrapper to unpack.
        super(config, factory, SimpleCacheKeysFactory.INSTANCE, context);
        completeInstantiation(config, context);
    }

    private CdcRegionFactory factory() {
        return (CdcRegionFactory) getRegionFactory();
    }

    private RoleStorage storage(String role, CdcRegionFactory.RoleKind kind) {
        return factory().storage(role, getName(), kind, getEffectiveKeysFactory());
    }

    @Override
    public EntityDataAccess generateEntityAccess(EntityDataCachingConfig config) {
        RoleStorage storage = storage(config.getNavigableRole().getFullPath(), CdcRegionFactory.RoleKind.ENTITY);
        return switch (config.getAccessType()) {
            case READ_ONLY -> new EntityReadOnlyAccess(this, getEffectiveKeysFactory(), storage, config);
            case NONSTRICT_READ_WRITE -> new EntityNonStrictReadWriteAccess(this, getEffectiveKeysFactory(), storage,
                    config);
            case READ_WRITE -> new EntityReadWriteAccess(this, getEffectiveKeysFactory(), storage, config);
            case TRANSACTIONAL -> throw transactional(config.getNavigableRole().getFullPath());
        };
    }

    @Override
    public NaturalIdDataAccess generateNaturalIdAccess(NaturalIdDataCachingConfig config) {
        RoleStorage storage = storage(config.getNavigableRole().getFullPath() + "#natural-id",
                CdcRegionFactory.RoleKind.NATURAL_ID);
        return switch (config.getAccessType()) {
            case READ_ONLY -> new NaturalIdReadOnlyAccess(this, getEffectiveKeysFactory(), storage, config);
            case NONSTRICT_READ_WRITE -> new NaturalIdNonStrictReadWriteAccess(this, getEffectiveKeysFactory(),
                    storage, config);
            case READ_WRITE -> new NaturalIdReadWriteAccess(this, getEffectiveKeysFactory(), storage, config);
            case TRANSACTIONAL -> throw transactional(config.getNavigableRole().getFullPath());
        };
    }

    @Override
    public CollectionDataAccess generateCollectionAccess(CollectionDataCachingConfig config) {
        RoleStorage storage = storage(config.getNavigableRole().getFullPath(), CdcRegionFactory.RoleKind.COLLECTION);
        return switch (config.getAccessType()) {
            case READ_ONLY -> new CollectionReadOnlyAccess(this, getEffectiveKeysFactory(), storage, config);
            case NONSTRICT_READ_WRITE -> new CollectionNonStrictReadWriteAccess(this, getEffectiveKeysFactory(),
                    storage, config);
            case READ_WRITE -> new CollectionReadWriteAccess(this, getEffectiveKeysFactory(), storage, config);
            case TRANSACTIONAL -> throw transactional(config.getNavigableRole().getFullPath());
        };
    }

    private static UnsupportedOperationException transactional(String role) {
        return new UnsupportedOperationException("The CDC second-level cache does not support "
                + AccessType.TRANSACTIONAL.getExternalName() + " access (" + role + "); use "
                + AccessType.NONSTRICT_READ_WRITE.getExternalName() + ", " + AccessType.READ_WRITE.getExternalName()
                + " or " + AccessType.READ_ONLY.getExternalName());
    }
}
