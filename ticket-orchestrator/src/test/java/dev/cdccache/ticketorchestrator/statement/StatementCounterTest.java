package dev.cdccache.ticketorchestrator.statement;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StatementCounterTest {

    @Test
    void attributesStatementsToTheFirstTableTheyName() {
        assertThat(StatementCounter.tableOf("SELECT id, name FROM ticket_category WHERE id IN (?, ?)"))
                .isEqualTo("ticket_category");
        assertThat(StatementCounter.tableOf("select * from `ticket_db`.`parking_lot` where id = ?"))
                .isEqualTo("parking_lot");
        assertThat(StatementCounter.tableOf("INSERT INTO season_ticket (a) VALUES (?)")).isEqualTo("season_ticket");
        assertThat(StatementCounter.tableOf("UPDATE car_exchange_detail SET reason = ? WHERE id = ?"))
                .isEqualTo("car_exchange_detail");
        assertThat(StatementCounter.tableOf("SELECT 1")).isEqualTo(StatementCounter.OTHER);
    }

    @Test
    void countsEachExecutionPerTable() {
        StatementCounter counter = new StatementCounter();
        counter.executed("SELECT id FROM parking_lot WHERE id = ?");
        counter.executed("SELECT id FROM parking_lot WHERE id = ?");
        counter.executed("SELECT id FROM ticket_category");
        counter.executed(null);

        assertThat(counter.count("parking_lot")).isEqualTo(2);
        assertThat(counter.count("ticket_category")).isEqualTo(1);
        assertThat(counter.count("car_exchange_detail")).isZero();
        assertThat(counter.snapshot()).containsEntry(StatementCounter.OTHER, 1L);
    }
}
