-- Reference data: changes rarely, cached in every instance, invalidated through the binlog.
CREATE TABLE parking_lot (
    id         BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name       VARCHAR(100) NOT NULL,
    address    VARCHAR(200) NOT NULL,
    capacity   INT          NOT NULL,
    -- the coupon-service place whose coupons apply to tickets of this lot
    place_id   BIGINT       NOT NULL,
    updated_at DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB;

CREATE TABLE ticket_category (
    id          BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name        VARCHAR(100)  NOT NULL,
    monthly_fee DECIMAL(10, 2) NOT NULL,
    description VARCHAR(200)  NOT NULL,
    updated_at  DATETIME(6)   NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB;

CREATE TABLE car_exchange_detail (
    id                  BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    original_car_number VARCHAR(20)  NOT NULL,
    temporary_car_number VARCHAR(20) NOT NULL,
    reason              VARCHAR(200) NOT NULL,
    valid_until         DATE         NOT NULL,
    updated_at          DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB;

-- Tickets change often and are never cached.
CREATE TABLE season_ticket (
    id              BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    parking_lot_id  BIGINT      NOT NULL,
    category_id     BIGINT      NOT NULL,
    car_number      VARCHAR(20) NOT NULL,
    start_date      DATE        NOT NULL,
    end_date        DATE        NOT NULL,
    status          VARCHAR(16) NOT NULL,
    car_exchange_id BIGINT      NULL,
    updated_at      DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
    -- indirect references (no foreign keys), as in the seed's domain services
    KEY idx_season_ticket_lot_period (parking_lot_id, start_date, end_date, id)
) ENGINE = InnoDB;
