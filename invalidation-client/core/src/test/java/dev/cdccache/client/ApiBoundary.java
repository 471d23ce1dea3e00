package dev.cdccache.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.Set;

/**
 * The line between the client core and the code built on it: the core's packages, and the rule that code outside
 * them uses nothing marked {@link Internal}. In the core's test-jar, so that every front end's tests check their own
 * classes with the same rule ({@code UsesOnlyThePublicApiTest}).
 */
public final class ApiBoundary {

    /** The packages of the client core (not their sub-packages: the starter and the Hibernate module live there). */
    public static final Set<String> CORE_PACKAGES = Set.of("dev.cdccache.client", "dev.cdccache.client.cache",
            "dev.cdccache.client.consuming", "dev.cdccache.client.eviction", "dev.cdccache.client.keymapping",
            "dev.cdccache.client.metrics", "dev.cdccache.client.parsing", "dev.cdccache.client.position",
            "dev.cdccache.client.settings", "dev.cdccache.client.staleness");

    private ApiBoundary() {
    }

    /** Whether a class belongs to the client core. */
    public static boolean inCore(JavaClass type) {
        return CORE_PACKAGES.contains(type.getPackageName());
    }

    /** Fails if a class of {@code classes} outside the core depends on a type of the core marked {@link Internal}. */
    public static void checkOnlyTheApiIsUsed(JavaClasses classes) {
        noClasses().that(DescribedPredicate.describe("are outside the client core", type -> !inCore(type)))
                .should().dependOnClassesThat(DescribedPredicate.describe("are internal to the client core",
                        type -> inCore(type) && type.isAnnotatedWith(Internal.class)))
                .because("only the API listed in docs/client.md (\"Public API\") is meant to be used outside the core")
                .check(classes);
    }
}
