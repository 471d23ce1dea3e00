package dev.cdccache.client.spring;

import org.springframework.boot.SpringBootVersion;

/**
 * Fails start-up on a Spring Boot older than 4. On Boot 3 the starter would not fail by itself; it would
 * half-work: the health indicator (Boot 4's {@code org.springframework.boot.health} API) would silently not be
 * registered and the ordering before Boot's cache auto-configuration (a Boot 4 class name) would be lost, so
 * {@code @Cacheable} could end up on Boot's own cache manager, which nothing invalidates. A clear error is
 * better than caches that quietly stop being invalidated.
 */
final class SpringBootRequirement {

    /** The first Spring Boot major version the starter is built and tested against. */
    static final int REQUIRED_MAJOR = 4;

    private SpringBootRequirement() {
    }

    /** Checks the running Spring Boot; throws {@link UnsupportedSpringBootException} naming the fix if it is too old. */
    static void check() {
        check(SpringBootVersion.getVersion(), classPresent("org.springframework.boot.EnvironmentPostProcessor"));
    }

    /**
     * @param version Spring Boot's version as its jar states it, {@code null} when unknown (a repackaged jar
     *        without the manifest entry)
     * @param boot4ApiPresent whether a class that exists from Spring Boot 4 on is present; decides when the
     *        version is unknown
     */
    static void check(String version, boolean boot4ApiPresent) {
        int major = major(version);
        boolean supported = major < 0 ? boot4ApiPresent : major >= REQUIRED_MAJOR;
        if (!supported) {
            String found = version != null ? "Spring Boot " + version : "an older Spring Boot";
            throw new UnsupportedSpringBootException(
                    "invalidation-client-spring-boot-starter needs Spring Boot " + REQUIRED_MAJOR
                            + ".x (built against 4.0), found " + (version != null ? version : "an older version")
                            + ". Upgrade the application to Spring Boot 4, or use invalidation-client-core without"
                            + " the starter (see docs/client.md, 'Spring Boot 3')", found);
        }
    }

    private static int major(String version) {
        if (version == null) {
            return -1;
        }
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean classPresent(String name) {
        try {
            Class.forName(name, false, SpringBootRequirement.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
