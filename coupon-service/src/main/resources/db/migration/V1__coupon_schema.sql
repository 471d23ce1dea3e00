-- The coupon domain: coupons with their places, attributes and issue limits.
-- Foreign keys never cascade: rows removed by a cascade are not written to the binlog as row events,
-- so CDC (and every cache fed by it) would never hear of them. Deletes name their child rows explicitly.

CREATE TABLE place (
    id         BIGINT       NOT NULL AUTO_INCREMENT,
    name       VARCHAR(200) NOT NULL,
    region     VARCHAR(100) NOT NULL,
    category   VARCHAR(50)  NOT NULL,
    updated_at DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
    PRIMARY KEY (id)
) ENGINE = InnoDB;

CREATE TABLE coupon (
    id             BIGINT        NOT NULL AUTO_INCREMENT,
    code           VARCHAR(64)   NOT NULL,
    place_id       BIGINT        NOT NULL,
    name           VARCHAR(200)  NOT NULL,
    discount_type  VARCHAR(16)   NOT NULL,
    discount_value DECIMAL(12, 2) NOT NULL,
    minimum_price  DECIMAL(12, 2) NOT NULL,
    valid_from     DATE          NOT NULL,
    valid_until    DATE          NOT NULL,
    status         VARCHAR(16)   NOT NULL,
    issue_limit    INT           NOT NULL,
    updated_at     DATETIME(6)   NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
    PRIMARY KEY (id),
    UNIQUE KEY uk_coupon_code (code),
    KEY idx_coupon_place (place_id),
    CONSTRAINT fk_coupon_place FOREIGN KEY (place_id) REFERENCES place (id),
    CONSTRAINT ck_coupon_discount_type CHECK (discount_type IN ('FIXED_AMOUNT', 'PERCENTAGE')),
    CONSTRAINT ck_coupon_status CHECK (status IN ('ACTIVE', 'PAUSED', 'ENDED')),
    CONSTRAINT ck_coupon_values CHECK (discount_value > 0 AND minimum_price >= 0 AND issue_limit >= 0),
    CONSTRAINT ck_coupon_window CHECK (valid_from <= valid_until)
) ENGINE = InnoDB;

CREATE TABLE coupon_attribute (
    id              BIGINT       NOT NULL AUTO_INCREMENT,
    coupon_id       BIGINT       NOT NULL,
    attribute_key   VARCHAR(64)  NOT NULL,
    attribute_value VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_coupon_attribute (coupon_id, attribute_key),
    CONSTRAINT fk_coupon_attribute_coupon FOREIGN KEY (coupon_id) REFERENCES coupon (id)
) ENGINE = InnoDB;

CREATE TABLE coupon_progress (
    coupon_id    BIGINT      NOT NULL,
    issued_count INT         NOT NULL DEFAULT 0,
    used_count   INT         NOT NULL DEFAULT 0,
    updated_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
    PRIMARY KEY (coupon_id),
    CONSTRAINT fk_coupon_progress_coupon FOREIGN KEY (coupon_id) REFERENCES coupon (id)
) ENGINE = InnoDB;

CREATE TABLE user_coupon (
    id        BIGINT      NOT NULL AUTO_INCREMENT,
    coupon_id BIGINT      NOT NULL,
    user_id   BIGINT      NOT NULL,
    status    VARCHAR(16) NOT NULL DEFAULT 'ISSUED',
    issued_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (id),
    UNIQUE KEY uk_user_coupon (coupon_id, user_id),
    KEY idx_user_coupon_user (user_id),
    CONSTRAINT fk_user_coupon_coupon FOREIGN KEY (coupon_id) REFERENCES coupon (id)
) ENGINE = InnoDB;
