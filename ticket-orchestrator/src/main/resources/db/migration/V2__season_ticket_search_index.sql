-- The search filters one lot and a period, orders by (start_date, id) and returns one page (LIMIT/OFFSET).
-- The index of V1 had end_date between start_date and id, so its order was not the query's: MariaDB read
-- every ticket of the lot valid in the period (thousands), sorted them (filesort) and kept one page.
-- In (parking_lot_id, start_date, id) order the index hands rows out in the query's order and the read
-- stops after the page; end_date last lets the index condition skip tickets that ended before the period
-- without reading their rows.
--
-- Safe on a populated database: ALGORITHM=INPLACE, LOCK=NONE builds the index online (reads and writes of
-- season_ticket go on) or fails without changing anything where the server cannot do that, instead of
-- locking the table. Adding the new index and dropping the old one in one statement means no moment without
-- an index. Plain syntax that MariaDB and MySQL 8 both accept (no IF [NOT] EXISTS: MySQL has none for
-- indexes); Flyway runs it once per database.
ALTER TABLE season_ticket
    ADD INDEX idx_season_ticket_lot_start (parking_lot_id, start_date, id, end_date),
    DROP INDEX idx_season_ticket_lot_period,
    ALGORITHM = INPLACE, LOCK = NONE;
