package dev.cdccache.client;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How the client authenticates to Kafka and encrypts the connection: SASL (SCRAM-SHA-512, SCRAM-SHA-256 or
 * PLAIN) and TLS trust and key stores. Immutable; {@link #clientProperties()} turns it into the Kafka client
 * properties ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}) the client's consumer receives.
 * {@link #toString()} never shows a password.
 *
 * <pre>{@code
 * KafkaSecurity security = KafkaSecurity.builder()
 *         .protocol(KafkaSecurity.Protocol.SASL_SSL)
 *         .sasl(KafkaSecurity.Mechanism.SCRAM_SHA_512, "coupon-service", System.getenv("KAFKA_PASSWORD"))
 *         .truststore(Path.of("/etc/kafka/truststore.p12"), System.getenv("TRUSTSTORE_PASSWORD"), "PKCS12")
 *         .build();
 * }</pre>
 */
public final class KafkaSecurity {

    /** Kafka's {@code security.protocol}. */
    public enum Protocol {
        /** No authentication, no encryption (Kafka's default). */
        PLAINTEXT,
        /** TLS, no SASL. */
        SSL,
        /** SASL authentication without encryption. */
        SASL_PLAINTEXT,
        /** SASL authentication over TLS: the production choice. */
        SASL_SSL;

        boolean usesSasl() {
            return this == SASL_PLAINTEXT || this == SASL_SSL;
        }

        boolean usesTls() {
            return this == SSL || this == SASL_SSL;
        }
    }

    /** SASL mechanisms with a typed configuration. */
    public enum Mechanism {
        /** SCRAM with SHA-256. */
        SCRAM_SHA_256("SCRAM-SHA-256", "org.apache.kafka.common.security.scram.ScramLoginModule"),
        /** SCRAM with SHA-512. */
        SCRAM_SHA_512("SCRAM-SHA-512", "org.apache.kafka.common.security.scram.ScramLoginModule"),
        /** PLAIN: the password travels as is, so only over SASL_SSL. */
        PLAIN("PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule");

        private final String kafkaName;
        private final String loginModule;

        Mechanism(String kafkaName, String loginModule) {
            this.kafkaName = kafkaName;
            this.loginModule = loginModule;
        }

        /** The name Kafka's {@code sasl.mechanism} takes. */
        public String kafkaName() {
            return kafkaName;
        }
    }

    private static final KafkaSecurity PLAINTEXT = new Builder().build();

    private final Protocol protocol;
    private final Mechanism mechanism;
    private final String username;
    private final String password;
    private final Path truststoreLocation;
    private final String truststorePassword;
    private final String truststoreType;
    private final Path keystoreLocation;
    private final String keystorePassword;
    private final String keystoreType;
    private final String keyPassword;
    private final String endpointIdentificationAlgorithm;

    private KafkaSecurity(Builder b) {
        this.protocol = b.protocol;
        this.mechanism = b.mechanism;
        this.username = b.username;
        this.password = b.password;
        this.truststoreLocation = b.truststoreLocation;
        this.truststorePassword = b.truststorePassword;
        this.truststoreType = b.truststoreType;
        this.keystoreLocation = b.keystoreLocation;
        this.keystorePassword = b.keystorePassword;
        this.keystoreType = b.keystoreType;
        this.keyPassword = b.keyPassword;
        this.endpointIdentificationAlgorithm = b.endpointIdentificationAlgorithm;
    }

    /** No authentication, no encryption: what a client gets unless it configures security. */
    public static KafkaSecurity plaintext() {
        return PLAINTEXT;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Protocol protocol() {
        return protocol;
    }

    /**
     * The Kafka client properties for these settings; empty for {@link Protocol#PLAINTEXT}. The result carries
     * the secrets: never log it.
     */
    public Map<String, String> clientProperties() {
        Map<String, String> props = new LinkedHashMap<>();
        if (protocol == Protocol.PLAINTEXT) {
            return props;
        }
        props.put("security.protocol", protocol.name());
        if (protocol.usesSasl()) {
            props.put("sasl.mechanism", mechanism.kafkaName());
            props.put("sasl.jaas.config", mechanism.loginModule + " required username=\"" + jaasEscape(username)
                    + "\" password=\"" + jaasEscape(password) + "\";");
        }
        if (protocol.usesTls()) {
            put(props, "ssl.truststore.location", truststoreLocation == null ? null : truststoreLocation.toAbsolutePath().toString());
            put(props, "ssl.truststore.password", truststorePassword);
            put(props, "ssl.truststore.type", truststoreType);
            put(props, "ssl.keystore.location", keystoreLocation == null ? null : keystoreLocation.toAbsolutePath().toString());
            put(props, "ssl.keystore.password", keystorePassword);
            put(props, "ssl.keystore.type", keystoreType);
            put(props, "ssl.key.password", keyPassword);
            if (endpointIdentificationAlgorithm != null) {
                // Kafka's default "https" checks the broker's host name; an empty value switches that off on purpose.
                props.put("ssl.endpoint.identification.algorithm", endpointIdentificationAlgorithm);
            }
        }
        return props;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("KafkaSecurity{protocol=").append(protocol);
        if (protocol.usesSasl()) {
            text.append(", mechanism=").append(mechanism).append(", username=").append(username).append(", password=******");
        }
        if (protocol.usesTls()) {
            text.append(", truststore=").append(truststoreLocation).append(", keystore=").append(keystoreLocation);
        }
        return text.append('}').toString();
    }

    private static void put(Map<String, String> props, String key, String value) {
        if (value != null && !value.isEmpty()) {
            props.put(key, value);
        }
    }

    private static String jaasEscape(String value) {
        // JAAS quoted strings: a backslash or quote inside a password must not end the value.
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /**
     * Builder of a {@link KafkaSecurity}; not thread-safe. {@link #build()} throws
     * {@link InvalidConfigurationException} naming the setting (under {@code kafka.security.}) that is wrong.
     */
    public static final class Builder {
        private Protocol protocol = Protocol.PLAINTEXT;
        private Mechanism mechanism = Mechanism.SCRAM_SHA_512;
        private String username;
        private String password;
        private Path truststoreLocation;
        private String truststorePassword;
        private String truststoreType;
        private Path keystoreLocation;
        private String keystorePassword;
        private String keystoreType;
        private String keyPassword;
        private String endpointIdentificationAlgorithm;

        private Builder() {
        }

        public Builder protocol(Protocol protocol) {
            this.protocol = protocol;
            return this;
        }

        /** SASL credentials; used with {@link Protocol#SASL_PLAINTEXT} and {@link Protocol#SASL_SSL}. */
        public Builder sasl(Mechanism mechanism, String username, String password) {
            this.mechanism = mechanism;
            this.username = username;
            this.password = password;
            return this;
        }

        /** The trust store with the CA (or broker certificate) to trust; the JVM's default when not set. */
        public Builder truststore(Path location, String password, String type) {
            this.truststoreLocation = location;
            this.truststorePassword = password;
            this.truststoreType = type;
            return this;
        }

        /** The client's own certificate, for brokers that require client certificates (mTLS). */
        public Builder keystore(Path location, String storePassword, String keyPassword, String type) {
            this.keystoreLocation = location;
            this.keystorePassword = storePassword;
            this.keyPassword = keyPassword;
            this.keystoreType = type;
            return this;
        }

        /** Kafka's {@code ssl.endpoint.identification.algorithm}; {@code ""} turns the host name check off. */
        public Builder endpointIdentificationAlgorithm(String algorithm) {
            this.endpointIdentificationAlgorithm = algorithm;
            return this;
        }

        public KafkaSecurity build() {
            require(protocol != null, "protocol", "must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL");
            if (protocol.usesSasl()) {
                require(mechanism != null, "sasl.mechanism", "must be SCRAM_SHA_512, SCRAM_SHA_256 or PLAIN");
                require(username != null && !username.isBlank(), "sasl.username",
                        "is required with protocol " + protocol);
                require(password != null && !password.isEmpty(), "sasl.password",
                        "is required with protocol " + protocol);
                require(protocol == Protocol.SASL_SSL || mechanism != Mechanism.PLAIN, "sasl.mechanism",
                        "PLAIN sends the password in clear: use it only with protocol SASL_SSL, or use SCRAM_SHA_512");
            } else {
                require(username == null, "sasl.username", "is set but protocol " + protocol
                        + " does not use SASL: set kafka.security.protocol to SASL_SSL or SASL_PLAINTEXT");
            }
            if (!protocol.usesTls()) {
                require(truststoreLocation == null && keystoreLocation == null, "ssl",
                        "trust/key stores are set but protocol " + protocol
                                + " does not use TLS: set kafka.security.protocol to SSL or SASL_SSL");
            }
            require(truststoreLocation == null || Files.isReadable(truststoreLocation), "ssl.truststore-location",
                    "names a file that does not exist or is not readable: " + truststoreLocation);
            require(keystoreLocation == null || Files.isReadable(keystoreLocation), "ssl.keystore-location",
                    "names a file that does not exist or is not readable: " + keystoreLocation);
            return new KafkaSecurity(this);
        }

        private static void require(boolean condition, String setting, String problem) {
            if (!condition) {
                throw new InvalidConfigurationException("kafka.security." + setting, problem);
            }
        }
    }
}
