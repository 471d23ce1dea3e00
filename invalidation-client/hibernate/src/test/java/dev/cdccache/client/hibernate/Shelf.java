package dev.cdccache.client.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;

/** A cached entity whose table the connector of the tests does not capture. */
@Entity
@Table(name = "shelf")
@Cache(usage = CacheConcurrencyStrategy.READ_WRITE)
public class Shelf {

    @Id
    private Long id;

    private String label;

    protected Shelf() {
    }

    public String getLabel() {
        return label;
    }
}
