package dev.cdccache.connector.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How the connector authenticates to Kafka and encrypts the connection, bound from
 * {@code cdc.connector.kafka.security.*}. {@link #clientProperties()} turns it into the Kafka client properties
 * ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}) that every client the connector creates receives: its
 * producer and admin client, the offset store's clients and Debezium's schema-history clients.
 *
 * <p>The defaults are Kafka's: {@code PLAINTEXT}, no authentication. Secrets are plain settings so that they can
 * come from wherever Spring reads settings (an environment variable such as
 * {@code CDC_CONNECTOR_KAFKA_SECURITY_SASL_PASSWORD}, or a file through {@code spring.config.import=configtree:});
 * {@link #toString()} never shows them.
 */
public class KafkaSecurity {

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

    /** Kafka's {@code security.protocol}. */
    @NotNull
    private Protocol protocol = Protocol.PLAINTEXT;

    /** SASL authentication, used when {@link #protocol} is SASL_PLAINTEXT or SASL_SSL. */
    @Valid
    @NotNull
    private Sasl sasl = new Sasl();

    /** TLS settings, used when {@link #protocol} is SSL or SASL_SSL. */
    @Valid
    @NotNull
    private Ssl ssl = new Ssl();

    public Protocol getProtocol() { return protocol; }
    public void setProtocol(Protocol protocol) { this.protocol = protocol; }
    public Sasl getSasl() { return sasl; }
    public void setSasl(Sasl sasl) { this.sasl = sasl; }
    public Ssl getSsl() { return ssl; }
    public void setSsl(Ssl ssl) { this.ssl = ssl; }

    /** SASL needs a user name and a password. */
    @AssertTrue(message = "protocol SASL_PLAINTEXT or SASL_SSL needs cdc.connector.kafka.security.sasl.username "
            + "and cdc.connector.kafka.security.sasl.password")
    public boolean isSaslComplete() {
        return protocol == null || !protocol.usesSasl() || (notBlank(sasl.username) && sasl.password != null
                && !sasl.password.isEmpty());
    }

    /** Credentials without a SASL protocol would be silently ignored: a forgotten protocol setting. */
    @AssertTrue(message = "cdc.connector.kafka.security.sasl.username is set but protocol is not SASL_PLAINTEXT or "
            + "SASL_SSL; set cdc.connector.kafka.security.protocol")
    public boolean isSaslOnlyWithSaslProtocol() {
        return protocol == null || protocol.usesSasl() || !notBlank(sasl.username);
    }

    /** TLS settings without a TLS protocol would be silently ignored. */
    @AssertTrue(message = "cdc.connector.kafka.security.ssl.* is set but protocol is not SSL or SASL_SSL; "
            + "set cdc.connector.kafka.security.protocol")
    public boolean isSslOnlyWithTlsProtocol() {
        return protocol == null || protocol.usesTls() || (ssl.truststoreLocation == null && ssl.keystoreLocation == null);
    }

    /** PLAIN over a clear-text connection would send the password as is. */
    @AssertTrue(message = "SASL mechanism PLAIN sends the password in clear: use it only with protocol SASL_SSL, "
            + "or use SCRAM_SHA_512")
    public boolean isPlainOnlyOverTls() {
        return protocol != Protocol.SASL_PLAINTEXT || sasl.mechanism != Mechanism.PLAIN;
    }

    /** A trust store that is not there fails later inside Kafka with a less helpful message. */
    @AssertTrue(message = "cdc.connector.kafka.security.ssl.truststore-location or keystore-location names a "
            + "file that does not exist or is not readable")
    public boolean isStoresReadable() {
        return (ssl.truststoreLocation == null || Files.isReadable(ssl.truststoreLocation))
                && (ssl.keystoreLocation == null || Files.isReadable(ssl.keystoreLocation));
    }

    /**
     * The Kafka client properties for these settings; empty for {@code PLAINTEXT}. The result carries the
     * secrets: never log it.
     */
    public Map<String, String> clientProperties() {
        Map<String, String> props = new LinkedHashMap<>();
        if (protocol == null || protocol == Protocol.PLAINTEXT) {
            return props;
        }
        props.put("security.protocol", protocol.name());
        if (protocol.usesSasl()) {
            props.put("sasl.mechanism", sasl.mechanism.kafkaName());
            props.put("sasl.jaas.config", sasl.mechanism.loginModule + " required username=\"" + jaasEscape(sasl.username)
                    + "\" password=\"" + jaasEscape(sasl.password) + "\";");
        }
        if (protocol.usesTls()) {
            putPath(props, "ssl.truststore.location", ssl.truststoreLocation);
            putText(props, "ssl.truststore.password", ssl.truststorePassword);
            putText(props, "ssl.truststore.type", ssl.truststoreType);
            putPath(props, "ssl.keystore.location", ssl.keystoreLocation);
            putText(props, "ssl.keystore.password", ssl.keystorePassword);
            putText(props, "ssl.keystore.type", ssl.keystoreType);
            putText(props, "ssl.key.password", ssl.keyPassword);
            // Kafka's default "https" checks the broker's host name; an empty value switches that off on purpose.
            if (ssl.endpointIdentificationAlgorithm != null) {
                props.put("ssl.endpoint.identification.algorithm", ssl.endpointIdentificationAlgorithm);
            }
        }
        return props;
    }

    @Override
    public String toString() {
        return "{protocol=" + protocol + (protocol != null && protocol.usesSasl() ? ", sasl=" + sasl : "")
                + (protocol != null && protocol.usesTls() ? ", ssl=" + ssl : "") + "}";
    }

    private static String jaasEscape(String value) {
        // JAAS quoted strings: a backslash or quote inside a password must not end the value.
        return value == null ? "" : value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static void putPath(Map<String, String> props, String key, Path value) {
        if (value != null) {
            props.put(key, value.toAbsolutePath().toString());
        }
    }

    private static void putText(Map<String, String> props, String key, String value) {
        if (value != null && !value.isEmpty()) {
            props.put(key, value);
        }
    }

    private static boolean notBlank(String value) {
        return value != null && !value.isBlank();
    }

    /** SASL credentials. */
    public static class Sasl {
        /** The SASL mechanism; SCRAM_SHA_512 unless set. */
        @NotNull
        private Mechanism mechanism = Mechanism.SCRAM_SHA_512;
        /** The Kafka user. */
        private String username;
        /** The Kafka user's password; never logged. */
        private String password;

        public Mechanism getMechanism() { return mechanism; }
        public void setMechanism(Mechanism mechanism) { this.mechanism = mechanism; }
        public String getUsername() { return username; }
        public void setUsername(String username) { this.username = username; }
        public String getPassword() { return password; }
        public void setPassword(String password) { this.password = password; }

        @Override
        public String toString() {
            return "{mechanism=" + mechanism + ", username=" + username + ", password="
                    + (password == null ? "<unset>" : "******") + "}";
        }
    }

    /** TLS settings; the stores are files the connector's JVM reads. */
    public static class Ssl {
        /** Trust store holding the CA (or broker certificate) to trust; the JVM's default trust store when unset. */
        private Path truststoreLocation;
        /** Password of the trust store; never logged. */
        private String truststorePassword;
        /** Trust store format: PKCS12 or JKS (Kafka's default JKS reads PKCS12 files too). */
        private String truststoreType;
        /** Key store with the connector's own certificate, for brokers that require client certificates (mTLS). */
        private Path keystoreLocation;
        /** Password of the key store; never logged. */
        private String keystorePassword;
        /** Key store format: PKCS12 or JKS. */
        private String keystoreType;
        /** Password of the private key in the key store, when it differs; never logged. */
        private String keyPassword;
        /**
         * Kafka's {@code ssl.endpoint.identification.algorithm}: {@code https} (Kafka's default when unset) checks
         * the broker's host name against its certificate; an empty value turns the check off.
         */
        private String endpointIdentificationAlgorithm;

        public Path getTruststoreLocation() { return truststoreLocation; }
        public void setTruststoreLocation(Path truststoreLocation) { this.truststoreLocation = truststoreLocation; }
        public String getTruststorePassword() { return truststorePassword; }
        public void setTruststorePassword(String truststorePassword) { this.truststorePassword = truststorePassword; }
        public String getTruststoreType() { return truststoreType; }
        public void setTruststoreType(String truststoreType) { this.truststoreType = truststoreType; }
        public Path getKeystoreLocation() { return keystoreLocation; }
        public void setKeystoreLocation(Path keystoreLocation) { this.keystoreLocation = keystoreLocation; }
        public String getKeystorePassword() { return keystorePassword; }
        public void setKeystorePassword(String keystorePassword) { this.keystorePassword = keystorePassword; }
        public String getKeystoreType() { return keystoreType; }
        public void setKeystoreType(String keystoreType) { this.keystoreType = keystoreType; }
        public String getKeyPassword() { return keyPassword; }
        public void setKeyPassword(String keyPassword) { this.keyPassword = keyPassword; }
        public String getEndpointIdentificationAlgorithm() { return endpointIdentificationAlgorithm; }
        public void setEndpointIdentificationAlgorithm(String value) { this.endpointIdentificationAlgorithm = value; }

        @Override
        public String toString() {
            return "{truststoreLocation=" + truststoreLocation + ", truststoreType=" + truststoreType
                    + ", keystoreLocation=" + keystoreLocation + ", endpointIdentificationAlgorithm="
                    + endpointIdentificationAlgorithm + (truststorePassword != null ? ", truststorePassword=******" : "")
                    + "}";
        }
    }
}
