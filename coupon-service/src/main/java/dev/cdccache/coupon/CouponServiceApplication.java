package dev.cdccache.coupon;

import dev.cdccache.coupon.generator.DataGeneratorCommand;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * A read-heavy coupon API: coupon metadata, attributes and places read through a cache chosen by
 * {@code coupon.cache.mode} ({@code none}, {@code local} = Caffeine kept fresh by CDC, {@code redis}),
 * progress counts and user coupons always from the database.
 *
 * <p>With {@code --coupon.generate=...} the same jar loads generated data instead of serving
 * (see {@link DataGeneratorCommand}).
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class CouponServiceApplication {

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(CouponServiceApplication.class);
        if (DataGeneratorCommand.isRequested(args)) {
            DataGeneratorCommand.configure(application);
            System.exit(SpringApplication.exit(application.run(args)));
        }
        application.run(args);
    }
}
