package dev.cdccache.client.hibernate;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.cdccache.client.ApiBoundary;
import org.junit.jupiter.api.Test;

/** The Hibernate module uses only the client core's public API (docs/client.md, "Public API"), nothing marked {@code @Internal}. */
class UsesOnlyThePublicApiTest {

    @Test
    void nothingInternalToTheClientCoreIsUsed() {
        ApiBoundary.checkOnlyTheApiIsUsed(new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.cdccache"));
    }
}
