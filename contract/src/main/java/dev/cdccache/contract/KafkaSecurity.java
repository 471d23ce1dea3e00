package dev.cdccache.contract;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a Kafka client authenticates and encrypts its connection: SASL (SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN) and TLS
 * trust and key stores. The one type of these settings for the connector ({@code cdc.connector.kafka.security.*})
 * and the invalidation client ({@code cdc.invalidation.kafka.security.*}), so both accept the same settings, check
 * them the same way and produce the same Kafka client properties.
 *
 * <p>Immutable. Spring Boot binds it by its constructor (a missing component is {@code null} and takes the default
 * below); plain Java builds it with {@link #builder()}. Defaults are Kafka's: {@link Protocol#PLAINTEXT}, no
 * authentication; the SASL mechanism defaults to {@link Mechanism#SCRAM_SHA_512}. Construction does not validate,
 * because only the caller knows the names of its settings: {@link #problems(String)} lists what is wrong under the
 * caller's prefix, and callers fail start-up with it. {@link #toString()} never shows a password;
 * {@link #clientProperties()} carries them and must not be logged.
 *
 * @param protocol Kafka's {@code security.protocol}
 * @param sasl SASL credentials, used with {@link Protocol#SASL_PLAINTEXT} and {@link Protocol#SASL_SSL}
 * @param ssl TLS settings, used with {@link Protocol#SSL} and {@link Protocol#SASL_SSL}
 */
public record KafkaSecurity(Protocol protocol, Sasl sasl, Ssl ssl) {

    private static final KafkaSecurity PLAINTEXT = new KafkaSecurity(null, null, null);

    /** Fills in the defaults of components left {@code null}. */
    public KafkaSecurity {
        protocol = protocol == null ? Protocol.PLAINTEXT : protocol;
        sasl = sasl == null ? new Sasl(null, null, null) : sasl;
        ssl = ssl == null ? new Ssl(null, null, null, null, null, null, null, null) : ssl;
    }

    /** No authentication, no encryption: Kafka's default. */
    public static KafkaSecurity plaintext() {
        return PLAINTEXT;
    }

    /** A builder starting from {@link #plaintext()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Kafka's {@code security.protocol}. */
    public enum Protocol {
        /** No authentication, no encryption (Kafka's default). */
        PLAINTEXT,
        /** TLS, no SASL. */
        SSL,
        /** SASL authentication without encryption: credentials protected by SCRAM, data in clear. */
        SASL_PLAINTEXT,
        /** SASL authentication over TLS: the production choice. */
        SASL_SSL;

        /** Whether this protocol authenticates with SASL. */
        public boolean usesSasl() {
            return this == SASL_PLAINTEXT || this == SASL_SSL;
        }

        /** Whether this protocol encrypts with TLS. */
        public boolean usesTls() {
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

    /**
     * SASL credentials.
     *
     * @param mechanism the SASL mechanism; {@link Mechanism#SCRAM_SHA_512} when {@code null}
     * @param username the Kafka user
     * @param password the Kafka user's password; never shown by {@link #toString()}
     */
    public record Sasl(Mechanism mechanism, String username, String password) {

        /** Fills in the default mechanism. */
        public Sasl {
            mechanism = mechanism == null ? Mechanism.SCRAM_SHA_512 : mechanism;
        }

        @Override
        public String toString() {
            return "{mechanism=" + mechanism + ", username=" + username + ", password="
                    + (password == null ? "<unset>" : "******") + "}";
        }
    }

    /**
     * TLS settings; the stores are files the client's JVM reads.
     *
     * @param truststoreLocation trust store holding the CA (or broker certificate) to trust; the JVM's default
     *        trust store when {@code null}
     * @param truststorePassword password of the trust store; never shown by {@link #toString()}
     * @param truststoreType trust store format: PKCS12 or JKS (Kafka's default JKS reads PKCS12 files too)
     * @param keystoreLocation key store with the client's own certificate, for brokers that require client
     *        certificates (mTLS)
     * @param keystorePassword password of the key store; never shown by {@link #toString()}
     * @param keystoreType key store format: PKCS12 or JKS
     * @param keyPassword password of the private key in the key store, when it differs; never shown
     * @param endpointIdentificationAlgorithm Kafka's {@code ssl.endpoint.identification.algorithm}: {@code https}
     *        (Kafka's default when {@code null}) checks the broker's host name against its certificate; an empty
     *        value turns the check off
     */
    public record Ssl(Path truststoreLocation, String truststorePassword, String truststoreType, Path keystoreLocation,
            String keystorePassword, String keystoreType, String keyPassword, String endpointIdentificationAlgorithm) {

        @Override
        public String toString() {
            return "{truststoreLocation=" + truststoreLocation + ", truststoreType=" + truststoreType
                    + ", keystoreLocation=" + keystoreLocation + ", keystoreType=" + keystoreType
                    + ", endpointIdentificationAlgorithm=" + endpointIdentificationAlgorithm
                    + masked(", truststorePassword", truststorePassword) + masked(", keystorePassword", keystorePassword)
                    + masked(", keyPassword", keyPassword) + "}";
        }

        private static String masked(String name, String secret) {
            return secret == null ? "" : name + "=******";
        }
    }

    /**
     * What is wrong with these settings, each named under {@code prefix} (the caller's name of this group, with
     * its trailing dot, e.g. {@code "cdc.connector.kafka.security."}); empty when they can be used. Checked: a SASL
     * protocol without user or password; credentials or stores with a protocol that would silently ignore them
     * (a forgotten {@code protocol}); {@code PLAIN} over a clear-text connection; a store file that does not exist.
     */
    public List<SettingProblem> problems(String prefix) {
        List<SettingProblem> problems = new ArrayList<>();
        if (protocol.usesSasl()) {
            if (sasl.username() == null || sasl.username().isBlank()) {
                problems.add(new SettingProblem(prefix + "sasl.username", "is required with protocol " + protocol
                        + " (together with " + prefix + "sasl.password)"));
            }
            if (sasl.password() == null || sasl.password().isEmpty()) {
                problems.add(new SettingProblem(prefix + "sasl.password", "is required with protocol " + protocol
                        + " (together with " + prefix + "sasl.username)"));
            }
            if (protocol == Protocol.SASL_PLAINTEXT && sasl.mechanism() == Mechanism.PLAIN) {
                problems.add(new SettingProblem(prefix + "sasl.mechanism", "PLAIN sends the password in clear: use it"
                        + " only with protocol SASL_SSL, or use SCRAM_SHA_512"));
            }
        } else if (sasl.username() != null || sasl.password() != null) {
            problems.add(new SettingProblem(prefix + (sasl.username() != null ? "sasl.username" : "sasl.password"),
                    "is set but protocol " + protocol + " does not use SASL: set " + prefix
                            + "protocol to SASL_SSL or SASL_PLAINTEXT"));
        }
        if (!protocol.usesTls()) {
            for (String store : List.of("truststore", "keystore")) {
                if ((store.equals("truststore") ? ssl.truststoreLocation() : ssl.keystoreLocation()) != null) {
                    problems.add(new SettingProblem(prefix + "ssl." + store + "-location", "is set but protocol "
                            + protocol + " does not use TLS: set " + prefix + "protocol to SSL or SASL_SSL"));
                }
            }
        }
        if (ssl.truststoreLocation() != null && !Files.isReadable(ssl.truststoreLocation())) {
            problems.add(new SettingProblem(prefix + "ssl.truststore-location",
                    "names a file that does not exist or is not readable: " + ssl.truststoreLocation()));
        }
        if (ssl.keystoreLocation() != null && !Files.isReadable(ssl.keystoreLocation())) {
            problems.add(new SettingProblem(prefix + "ssl.keystore-location",
                    "names a file that does not exist or is not readable: " + ssl.keystoreLocation()));
        }
        return problems;
    }

    /**
     * The Kafka client properties for these settings ({@code security.protocol}, {@code sasl.*}, {@code ssl.*});
     * empty for {@link Protocol#PLAINTEXT}. The result carries the secrets: never log it.
     */
    public Map<String, String> clientProperties() {
        Map<String, String> props = new LinkedHashMap<>();
        if (protocol == Protocol.PLAINTEXT) {
            return props;
        }
        props.put("security.protocol", protocol.name());
        if (protocol.usesSasl()) {
            props.put("sasl.mechanism", sasl.mechanism().kafkaName());
            props.put("sasl.jaas.config", sasl.mechanism().loginModule + " required username=\""
                    + jaasEscape(sasl.username()) + "\" password=\"" + jaasEscape(sasl.password()) + "\";");
        }
        if (protocol.usesTls()) {
            put(props, "ssl.truststore.location", ssl.truststoreLocation());
            put(props, "ssl.truststore.password", ssl.truststorePassword());
            put(props, "ssl.truststore.type", ssl.truststoreType());
            put(props, "ssl.keystore.location", ssl.keystoreLocation());
            put(props, "ssl.keystore.password", ssl.keystorePassword());
            put(props, "ssl.keystore.type", ssl.keystoreType());
            put(props, "ssl.key.password", ssl.keyPassword());
            // Kafka's default "https" checks the broker's host name; an empty value switches that off on purpose.
            if (ssl.endpointIdentificationAlgorithm() != null) {
                props.put("ssl.endpoint.identification.algorithm", ssl.endpointIdentificationAlgorithm());
            }
        }
        return props;
    }

    @Override
    public String toString() {
        return "KafkaSecurity{protocol=" + protocol + (protocol.usesSasl() ? ", sasl=" + sasl : "")
                + (protocol.usesTls() ? ", ssl=" + ssl : "") + "}";
    }

    private static void put(Map<String, String> props, String key, Object value) {
        String text = value instanceof Path path ? path.toAbsolutePath().toString() : (String) value;
        if (text != null && !text.isEmpty()) {
            props.put(key, text);
        }
    }

    private static String jaasEscape(String value) {
        // JAAS quoted strings: a backslash or quote inside a password must not end the value.
        return value == null ? "" : value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** Builder of a {@link KafkaSecurity}, for plain Java and for readers of flat settings; not thread-safe. */
    public static final class Builder {
        private Protocol protocol;
        private Mechanism mechanism;
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

        /** Kafka's {@code security.protocol}; {@link Protocol#PLAINTEXT} unless set. */
        public Builder protocol(Protocol protocol) {
            this.protocol = protocol;
            return this;
        }

        /** SASL credentials; used with {@link Protocol#SASL_PLAINTEXT} and {@link Protocol#SASL_SSL}. */
        public Builder sasl(Mechanism mechanism, String username, String password) {
            return mechanism(mechanism).username(username).password(password);
        }

        /** The SASL mechanism; {@link Mechanism#SCRAM_SHA_512} unless set. */
        public Builder mechanism(Mechanism mechanism) {
            this.mechanism = mechanism;
            return this;
        }

        /** The Kafka user. */
        public Builder username(String username) {
            this.username = username;
            return this;
        }

        /** The Kafka user's password. */
        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /** The trust store with the CA (or broker certificate) to trust; the JVM's default when not set. */
        public Builder truststore(Path location, String password, String type) {
            return truststoreLocation(location).truststorePassword(password).truststoreType(type);
        }

        /** See {@link Ssl#truststoreLocation()}. */
        public Builder truststoreLocation(Path location) {
            this.truststoreLocation = location;
            return this;
        }

        /** See {@link Ssl#truststorePassword()}. */
        public Builder truststorePassword(String password) {
            this.truststorePassword = password;
            return this;
        }

        /** See {@link Ssl#truststoreType()}. */
        public Builder truststoreType(String type) {
            this.truststoreType = type;
            return this;
        }

        /** The client's own certificate, for brokers that require client certificates (mTLS). */
        public Builder keystore(Path location, String storePassword, String keyPassword, String type) {
            return keystoreLocation(location).keystorePassword(storePassword).keyPassword(keyPassword)
                    .keystoreType(type);
        }

        /** See {@link Ssl#keystoreLocation()}. */
        public Builder keystoreLocation(Path location) {
            this.keystoreLocation = location;
            return this;
        }

        /** See {@link Ssl#keystorePassword()}. */
        public Builder keystorePassword(String password) {
            this.keystorePassword = password;
            return this;
        }

        /** See {@link Ssl#keystoreType()}. */
        public Builder keystoreType(String type) {
            this.keystoreType = type;
            return this;
        }

        /** See {@link Ssl#keyPassword()}. */
        public Builder keyPassword(String password) {
            this.keyPassword = password;
            return this;
        }

        /** Kafka's {@code ssl.endpoint.identification.algorithm}; {@code ""} turns the host name check off. */
        public Builder endpointIdentificationAlgorithm(String algorithm) {
            this.endpointIdentificationAlgorithm = algorithm;
            return this;
        }

        /** The settings as given; check them with {@link KafkaSecurity#problems(String)}. */
        public KafkaSecurity build() {
            return new KafkaSecurity(protocol, new Sasl(mechanism, username, password), new Ssl(truststoreLocation,
                    truststorePassword, truststoreType, keystoreLocation, keystorePassword, keystoreType, keyPassword,
                    endpointIdentificationAlgorithm));
        }
    }
}
