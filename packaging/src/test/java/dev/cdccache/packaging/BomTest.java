package dev.cdccache.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The BOM (bom/pom.xml) has no parent, so nothing keeps it in step with the build by itself: its version is the
 * project's, and it manages exactly the client artifacts (every module under invalidation-client/, and the contract
 * they depend on). The example service imports it, so the build proves that the import resolves.
 */
class BomTest {

    @Test
    void theBomHasTheProjectsVersionAndManagesEveryClientArtifact() throws IOException {
        String bom = Files.readString(Repository.root().resolve("bom/pom.xml"));
        assertThat(bom).doesNotContain("<parent>");
        Matcher version = Pattern.compile("<artifactId>cdc-cache-bom</artifactId>\\s*(?:<!--.*?-->\\s*)?<version>([^<]+)</version>",
                Pattern.DOTALL).matcher(bom);
        assertThat(version.find()).isTrue();
        assertThat(version.group(1)).isEqualTo(Repository.projectVersion());

        Set<String> managed = new TreeSet<>();
        Matcher artifact = Pattern.compile("<artifactId>([^<]+)</artifactId>\\s*<version>\\$\\{project.version}</version>")
                .matcher(bom);
        while (artifact.find()) {
            managed.add(artifact.group(1));
        }
        Set<String> clientArtifacts = new TreeSet<>();
        clientArtifacts.add("cdc-contract");
        try (Stream<Path> modules = Files.list(Repository.root().resolve("invalidation-client"))) {
            modules.map(module -> module.resolve("pom.xml")).filter(Files::isRegularFile).forEach(pom ->
                    clientArtifacts.add(ownArtifactId(pom)));
        }
        assertThat(managed).isEqualTo(clientArtifacts);
    }

    private static String ownArtifactId(Path pom) {
        try {
            String xml = Files.readString(pom).replaceAll("(?s)<parent>.*?</parent>", "");
            Matcher m = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(xml);
            assertThat(m.find()).as(pom.toString()).isTrue();
            return m.group(1);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
