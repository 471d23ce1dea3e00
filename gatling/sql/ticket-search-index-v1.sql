-- ticket_db.season_ticket with the search index of schema V1 (end_date before id: the search sorts).
-- For gatling/bin/compare-sql; idempotent.
ALTER TABLE season_ticket
    ADD INDEX IF NOT EXISTS idx_season_ticket_lot_period (parking_lot_id, start_date, end_date, id),
    DROP INDEX IF EXISTS idx_season_ticket_lot_start;
ANALYZE TABLE season_ticket;
