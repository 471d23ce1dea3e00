package dev.cdccache.ticketorchestrator.reference;

import java.util.List;

import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Component;

/**
 * The list of all ticket categories, cached as one entry in the {@code categories} cache, which any change
 * to {@code ticket_category} empties (an "evict all" cache: a list has no per-row key).
 */
@Component
public class CategoryCatalog {

    /** Name of the cache holding the list. */
    public static final String CACHE = "categories";

    private final ReferenceRepository repository;

    CategoryCatalog(ReferenceRepository repository) {
        this.repository = repository;
    }

    /** @return every category, ordered by id */
    @Cacheable(cacheNames = CACHE, key = "'all'", sync = true)
    public List<TicketCategory> all() {
        return List.copyOf(repository.findAllCategories());
    }
}
