package dev.cdccache.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The core's public API is what docs/client.md lists ("Public API") and nothing else: every other public type is
 * marked {@link Internal}, no public member of an API type takes or returns an internal type, and the core imports
 * nothing of Spring (the starter only wires it).
 */
class PublicApiTest {

    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ApiBoundary.CORE_PACKAGES.toArray(String[]::new))
            .that(com.tngtech.archunit.base.DescribedPredicate.describe("in the core", ApiBoundary::inCore));

    @Test
    void theCoreDoesNotDependOnSpring() {
        noClasses().should().dependOnClassesThat().resideInAPackage("org.springframework..")
                .because("the client core is usable without Spring; the starter only wires it").check(CORE);
    }

    @Test
    void thePublicTypesWithoutInternalAreExactlyTheDocumentedApi() throws IOException {
        Set<String> api = new TreeSet<>();
        for (JavaClass type : CORE) {
            if (type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC)
                    && !type.isAnnotatedWith(Internal.class)) {
                api.add(type.getName());
            }
        }
        assertThat(api).as("public types of the core not marked @Internal, against docs/client.md \"Public API\"")
                .containsExactlyInAnyOrderElementsOf(documentedApi());
    }

    @Test
    void noPublicMemberOfTheApiTakesOrReturnsAnInternalType() {
        List<String> leaks = new ArrayList<>();
        for (JavaClass type : CORE) {
            if (!type.getModifiers().contains(JavaModifier.PUBLIC) || isInternal(type)) {
                continue;
            }
            for (JavaCodeUnit member : type.getCodeUnits()) {
                if (!exposed(member.getModifiers())) {
                    continue;
                }
                List<JavaClass> used = new ArrayList<>(member.getRawParameterTypes());
                used.add(member.getRawReturnType());
                for (JavaClass t : used) {
                    if (isInternal(t)) {
                        leaks.add(member.getFullName() + " uses " + t.getName());
                    }
                }
            }
            for (JavaField field : type.getFields()) {
                if (exposed(field.getModifiers()) && isInternal(field.getRawType())) {
                    leaks.add(field.getFullName() + " is of " + field.getRawType().getName());
                }
            }
        }
        assertThat(leaks).as("internal types reachable through the API").isEmpty();
    }

    private static boolean exposed(Set<JavaModifier> modifiers) {
        return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
    }

    private static boolean isInternal(JavaClass type) {
        JavaClass top = type;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return ApiBoundary.inCore(top) && top.isAnnotatedWith(Internal.class);
    }

    /** The types listed in docs/client.md's "Public API" table for the core's packages, fully qualified. */
    private static Set<String> documentedApi() throws IOException {
        Path doc = Path.of("../../docs/client.md");
        String text = Files.readString(doc);
        int start = text.indexOf("## Public API");
        String section = text.substring(start, text.indexOf("\n## ", start + 1));
        Set<String> api = new TreeSet<>();
        Matcher row = Pattern.compile("^\\| `(dev\\.cdccache\\.client[\\w.]*)` \\| (.*) \\|$", Pattern.MULTILINE)
                .matcher(section);
        while (row.find()) {
            // Names in backticks, leaving out the explanations in parentheses.
            Matcher name = Pattern.compile("`(\\w+)`").matcher(row.group(2).replaceAll("\\([^)]*\\)", ""));
            while (name.find()) {
                api.add(row.group(1) + "." + name.group(1));
            }
        }
        assertThat(api).as("types found in docs/client.md \"Public API\"").isNotEmpty();
        return api;
    }
}
