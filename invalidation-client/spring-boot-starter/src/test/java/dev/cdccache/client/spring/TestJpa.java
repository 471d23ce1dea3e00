package dev.cdccache.client.spring;

import javax.sql.DataSource;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

/** The Hibernate {@code EntityManagerFactory} the JPA tests declare: over a DataSource, with the given entities. */
final class TestJpa {

    private TestJpa() {
    }

    static LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource, Class<?>... entities) {
        LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
        factory.setDataSource(dataSource);
        factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
        String[] names = new String[entities.length];
        for (int i = 0; i < entities.length; i++) {
            names[i] = entities[i].getName();
        }
        factory.setManagedTypes(PersistenceManagedTypes.of(names));
        return factory;
    }
}
