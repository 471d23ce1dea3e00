package dev.cdccache.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's compatibility table names the versions the build really uses: the root pom's properties (Java,
 * Spring Boot, Kafka, Debezium), the Spring Boot 3 application of {@code compat/spring-boot-3}, and the versions
 * Spring Boot's BOM manages (Hibernate, Caffeine, Micrometer, the MariaDB JDBC driver). A version bump that leaves
 * the table behind fails here.
 */
class CompatibilityTableTest {

    private static final Pattern ROW = Pattern.compile("^\\|\\s*([^|]+?)\\s*\\|\\s*([^|]*?)\\s*\\|", Pattern.MULTILINE);

    @Test
    void theTableNamesTheVersionsOfTheRootPom() throws IOException {
        Map<String, String> table = compatibilityTable();
        String pom = Files.readString(Repository.root().resolve("pom.xml"));
        assertThat(table.get("Java")).startsWith(property(pom, "java.version"));
        assertThat(table.get("Spring Boot (starter)")).contains(property(pom, "spring-boot.version"))
                .contains(parentVersion(Files.readString(Repository.root().resolve("compat/spring-boot-3/pom.xml"))));
        assertThat(table.get("Kafka client and broker")).startsWith(property(pom, "kafka.version"));
        assertThat(table.get("Kafka Connect (exported connector)")).startsWith(property(pom, "kafka.version"));
        assertThat(table.get("Debezium")).startsWith(property(pom, "debezium.version"));
        assertThat(table).containsKeys("MariaDB", "MySQL 8");
        assertThat(table.get("MySQL 8")).isEqualTo("not tested");
    }

    @Test
    void theTableNamesTheVersionsSpringBootManages() throws IOException {
        String bootVersion = property(Files.readString(Repository.root().resolve("pom.xml")), "spring-boot.version");
        Path bom = Path.of(System.getProperty("cdc.maven.repository", System.getProperty("user.home") + "/.m2/repository"),
                "org/springframework/boot/spring-boot-dependencies", bootVersion,
                "spring-boot-dependencies-" + bootVersion + ".pom");
        assumeThat(bom).as("Spring Boot's BOM in the local Maven repository").exists();
        String managed = Files.readString(bom);
        Map<String, String> table = compatibilityTable();
        assertThat(table.get("Hibernate (second-level cache module)")).startsWith(minor(property(managed, "hibernate.version")));
        assertThat(table.get("Caffeine")).startsWith(minor(property(managed, "caffeine.version")));
        assertThat(table.get("Micrometer")).startsWith(minor(property(managed, "micrometer.version")));
        assertThat(table.get("MariaDB JDBC driver")).startsWith(minor(property(managed, "mariadb.version")));
        assertThat(property(managed, "kafka.version")).as("the Kafka client Boot manages is the broker's")
                .isEqualTo(property(Files.readString(Repository.root().resolve("pom.xml")), "kafka.version"));
    }

    @Test
    void aTableRowThatLagsBehindThePomIsNoticed() {
        String pom = "<properties>\n    <java.version>21</java.version>\n</properties>";
        Map<String, String> table = rows("| part | tested | notes |\n| --- | --- | --- |\n| Java | 17 | |\n");
        assertThat(table.get("Java")).doesNotStartWith(property(pom, "java.version"));
        assertThat(minor("7.2.24.Final")).isEqualTo("7.2");
    }

    /** The first two columns of the table under "## Compatibility": part to tested version. */
    private static Map<String, String> compatibilityTable() throws IOException {
        String readme = Files.readString(Repository.root().resolve("README.md"));
        int start = readme.indexOf("\n## Compatibility");
        assertThat(start).as("README has a Compatibility section").isNotNegative();
        int end = readme.indexOf("\n## ", start + 1);
        return rows(readme.substring(start, end < 0 ? readme.length() : end));
    }

    private static Map<String, String> rows(String markdown) {
        Map<String, String> rows = new LinkedHashMap<>();
        Matcher row = ROW.matcher(markdown);
        while (row.find()) {
            if (!row.group(1).startsWith("---") && !row.group(1).equals("part")) {
                rows.put(row.group(1), row.group(2));
            }
        }
        return rows;
    }

    private static String property(String pom, String name) {
        Matcher value = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">").matcher(pom);
        assertThat(value.find()).as("property " + name).isTrue();
        return value.group(1).trim();
    }

    private static String parentVersion(String pom) {
        Matcher parent = Pattern.compile("<parent>.*?<version>([^<]+)</version>", Pattern.DOTALL).matcher(pom);
        assertThat(parent.find()).as("a parent version").isTrue();
        return parent.group(1).trim();
    }

    /** {@code 7.2.24.Final} as {@code 7.2}: the table names minor versions where Boot picks the patch. */
    private static String minor(String version) {
        String[] parts = version.split("\\.");
        return parts[0] + "." + parts[1];
    }
}
