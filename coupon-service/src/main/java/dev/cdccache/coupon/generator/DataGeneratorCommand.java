package dev.cdccache.coupon.generator;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Arrays;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationInitializer;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * {@code java -jar coupon-service-exec.jar --coupon.generate=full|small|PLACES:COUPONS[:ATTRIBUTES]
 * [--coupon.generate-replace=true] --spring.datasource.url=...}: migrates the schema, loads generated
 * data and exits, without a web server or caches.
 */
@Component
@ConditionalOnProperty("coupon.generate")
public class DataGeneratorCommand implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(DataGeneratorCommand.class);

    private final DataSource dataSource;
    private final Environment environment;

    /**
     * @param schemaMigrated asked for so that the schema is migrated before the generator writes: a generator run
     *        initialises beans lazily (see {@link #configure}), and nothing else asks for the migration then
     */
    public DataGeneratorCommand(DataSource dataSource, Environment environment,
            FlywayMigrationInitializer schemaMigrated) {
        this.dataSource = dataSource;
        this.environment = environment;
    }

    /** Whether the command line asks for data generation instead of serving. */
    public static boolean isRequested(String[] args) {
        return Arrays.stream(args).anyMatch(arg -> arg.startsWith("--coupon.generate="))
                || System.getProperty("coupon.generate") != null;
    }

    /**
     * A generator run needs the database only: no web server, no cache, no change stream. Beans are created lazily,
     * so only what this command asks for is (the data source and the schema migration): not the JPA persistence
     * unit, the repositories or the services (about a tenth less CPU for a small plan).
     */
    public static void configure(SpringApplication application) {
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setLazyInitialization(true);
        // The profile's file outranks application.yml: cache mode none, invalidation client off.
        application.setAdditionalProfiles("generate");
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        GenerationPlan plan = GenerationPlan.parse(environment.getProperty("coupon.generate"));
        boolean replace = environment.getProperty("coupon.generate-replace", Boolean.class, false);
        log.info("Generating {} places, {} coupons, {} attributes per coupon{}", plan.places(), plan.coupons(),
                plan.attributesPerCoupon(), replace ? " (replacing existing data)" : "");
        CouponDataGenerator.Result result = new CouponDataGenerator(dataSource).generate(plan, replace, LocalDate.now(ZoneOffset.UTC));
        log.info("Generated {} places, {} coupons, {} attributes in {} ms", result.places(), result.coupons(),
                result.attributes(), result.took().toMillis());
    }
}
