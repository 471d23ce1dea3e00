package dev.cdccache.client.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;

/** A cached entity of its own table, which the TRUNCATE test empties. */
@Entity
@Table(name = "badge")
@Cache(usage = CacheConcurrencyStrategy.READ_WRITE)
public class Badge {

    @Id
    private Long id;

    private String label;

    protected Badge() {
    }

    public String getLabel() {
        return label;
    }
}
