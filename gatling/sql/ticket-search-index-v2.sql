-- ticket_db.season_ticket with the search index of schema V2 (the query's order: no sort).
-- For gatling/bin/compare-sql; idempotent.
ALTER TABLE season_ticket
    ADD INDEX IF NOT EXISTS idx_season_ticket_lot_start (parking_lot_id, start_date, id, end_date),
    DROP INDEX IF EXISTS idx_season_ticket_lot_period;
ANALYZE TABLE season_ticket;
