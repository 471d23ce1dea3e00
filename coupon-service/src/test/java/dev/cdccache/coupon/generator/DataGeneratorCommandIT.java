package dev.cdccache.coupon.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.coupon.testing.TestData;
import dev.cdccache.coupon.testing.TestDatabases;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.process.JavaProcess;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The runnable jar's generator command migrates an empty database and loads the requested volume with
 * every attribute and progress row; the generator refuses to mix into existing data and replaces it
 * only on request.
 */
class DataGeneratorCommandIT {

    private static final LocalStack STACK = LocalStack.shared();

    private static long count(String database, String sql) {
        return TestDatabases.queryLong(STACK, database, sql);
    }

    @Test
    void theJarsGenerateCommandMigratesAndLoadsThePlan() {
        String database = TestDatabases.create(STACK, "coupon_generated");
        JavaProcess process = JavaProcess.builder("coupon-generator")
                .jar(Path.of(System.getProperty("coupon.exec-jar", "target/coupon-service-0.1.0-SNAPSHOT-exec.jar")))
                .jvmArg("-Xmx256m")
                .jvmArg("-XX:TieredStopAtLevel=1")
                .arg("--coupon.generate=40:3000:5")
                .arg("--spring.datasource.url=" + STACK.mariaDb().jdbcUrl(database))
                .arg("--spring.datasource.username=" + STACK.mariaDb().appUser())
                .arg("--spring.datasource.password=" + STACK.mariaDb().appPassword())
                .logFile(Path.of("target", "generator-" + database + ".log"))
                .start();

        assertThat(process.waitFor(Duration.ofMinutes(2))).as(process.tail(30)).isZero();
        assertThat(count(database, "SELECT COUNT(*) FROM place")).isEqualTo(40);
        assertThat(count(database, "SELECT COUNT(*) FROM coupon")).isEqualTo(3000);
        assertThat(count(database, "SELECT COUNT(*) FROM coupon_attribute")).isEqualTo(15_000);
        assertThat(count(database, "SELECT COUNT(*) FROM coupon_progress")).isEqualTo(3000);
        assertThat(count(database, "SELECT COUNT(DISTINCT place_id) FROM coupon")).isEqualTo(40);
        assertThat(count(database, "SELECT COUNT(*) FROM coupon_progress p JOIN coupon c ON c.id = p.coupon_id"
                + " WHERE p.issued_count > c.issue_limit OR p.used_count > p.issued_count"))
                .as("generated counts are consistent").isZero();
    }

    @Test
    void theGeneratorRefusesToMixWithExistingDataAndReplacesOnRequest() throws Exception {
        String database = TestDatabases.create(STACK, "coupon_regenerated");
        DriverManagerDataSource admin = new DriverManagerDataSource(STACK.mariaDb().jdbcUrl(database),
                STACK.mariaDb().adminUser(), STACK.mariaDb().adminPassword());
        org.flywaydb.core.Flyway.configure().dataSource(admin).load().migrate();
        CouponDataGenerator generator = new CouponDataGenerator(admin);
        GenerationPlan plan = new GenerationPlan(5, 1_234, 3, 7);

        CouponDataGenerator.Result first = generator.generate(plan, false, TestData.today());
        assertThat(first.attributes()).isEqualTo(3 * 1_234);
        TestDatabases.sql(STACK, database, "INSERT INTO user_coupon (coupon_id, user_id) VALUES (1, 1)");

        assertThatThrownBy(() -> generator.generate(plan, false, TestData.today()))
                .hasMessageContaining("already hold data");
        assertThat(count(database, "SELECT COUNT(*) FROM coupon")).isEqualTo(1_234);

        generator.generate(plan, true, TestData.today());
        assertThat(count(database, "SELECT COUNT(*) FROM coupon")).isEqualTo(1_234);
        assertThat(count(database, "SELECT COUNT(*) FROM coupon_attribute")).isEqualTo(3 * 1_234);
        assertThat(count(database, "SELECT COUNT(*) FROM user_coupon")).isZero();
    }
}
