package dev.cdccache.client.hibernate;

import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.integrator.spi.Integrator;

/**
 * Registered through {@code META-INF/services}: when the session factory uses {@link CdcRegionFactory}, lets it
 * bind its regions to the change stream once the mapping metamodel is complete. Does nothing otherwise.
 */
public final class CdcCacheIntegrator implements Integrator {

    @Override
    public void integrate(Metadata metadata, BootstrapContext bootstrapContext, SessionFactoryImplementor factory) {
        if (factory.getCache() != null && factory.getCache().getRegionFactory() instanceof CdcRegionFactory regions) {
            factory.addObserver(regions.startupObserver());
        }
    }
}
