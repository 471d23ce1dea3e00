package dev.cdccache.ticketorchestrator.composition;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;

import org.junit.jupiter.api.Test;

import dev.cdccache.ticketorchestrator.reference.CarExchangeDetail;
import dev.cdccache.ticketorchestrator.reference.ParkingLot;
import dev.cdccache.ticketorchestrator.reference.ReferenceSource;
import dev.cdccache.ticketorchestrator.reference.ReferenceType;
import dev.cdccache.ticketorchestrator.reference.TicketCategory;
import dev.cdccache.ticketorchestrator.ticket.SeasonTicket;
import dev.cdccache.ticketorchestrator.ticket.TicketStatus;

/**
 * The shape of the lookups each composer makes, on in-memory tables (the real queries are counted by
 * CompositionQueryCountIT).
 */
class TicketComposerTest {

    private final Table<TicketCategory> categories = new Table<>(id -> new TicketCategory(id, "c" + id,
            BigDecimal.TEN, "d"));
    private final Table<ParkingLot> lots = new Table<>(id -> new ParkingLot(id, "lot" + id, "a", 10, id + 100));
    private final Table<CarExchangeDetail> exchanges = new Table<>(id -> id == 99 ? null
            : new CarExchangeDetail(id, "o", "t" + id, "r", LocalDate.of(2026, 1, 1)));

    private final List<SeasonTicket> page = List.of(
            ticket(1, 7, 10L), ticket(2, 8, null), ticket(3, 7, 11L), ticket(4, 8, 99L));

    @Test
    void batchedCompositionMakesOneBulkLookupPerReferenceTypeWithTheDistinctIds() {
        List<ComposedTicket> composed = new BatchedTicketComposer(categories.source(ReferenceType.CATEGORY),
                lots.source(ReferenceType.PARKING_LOT), exchanges.source(ReferenceType.CAR_EXCHANGE)).compose(page);

        assertThat(categories.bulkCalls).containsExactly(List.of(7L, 8L));
        assertThat(lots.bulkCalls).containsExactly(List.of(5L));
        assertThat(exchanges.bulkCalls).containsExactly(List.of(10L, 11L, 99L));
        assertThat(categories.singleCalls + lots.singleCalls + exchanges.singleCalls).isZero();
        assertComposed(composed);
    }

    @Test
    void perItemCompositionLooksUpEveryTicketsReferencesOneByOne() {
        List<ComposedTicket> composed = new PerItemTicketComposer(categories.source(ReferenceType.CATEGORY),
                lots.source(ReferenceType.PARKING_LOT), exchanges.source(ReferenceType.CAR_EXCHANGE)).compose(page);

        assertThat(categories.singleCalls).isEqualTo(4);
        assertThat(lots.singleCalls).isEqualTo(4);
        assertThat(exchanges.singleCalls).isEqualTo(3);
        assertThat(categories.bulkCalls).isEmpty();
        assertComposed(composed);
    }

    @Test
    void anEmptyPageLooksNothingUp() {
        new BatchedTicketComposer(categories.source(ReferenceType.CATEGORY), lots.source(ReferenceType.PARKING_LOT),
                exchanges.source(ReferenceType.CAR_EXCHANGE)).compose(List.of());

        assertThat(categories.bulkCalls).isEmpty();
        assertThat(lots.bulkCalls).isEmpty();
        assertThat(exchanges.bulkCalls).isEmpty();
    }

    private static void assertComposed(List<ComposedTicket> composed) {
        assertThat(composed).extracting(ComposedTicket::id).containsExactly(1L, 2L, 3L, 4L);
        assertThat(composed.get(0).category().name()).isEqualTo("c7");
        assertThat(composed.get(0).parkingLot().placeId()).isEqualTo(105);
        assertThat(composed.get(0).carExchange().temporaryCarNumber()).isEqualTo("t10");
        assertThat(composed.get(1).carExchange()).isNull();
        // a reference to a row that no longer exists composes as null, not as an error
        assertThat(composed.get(3).carExchange()).isNull();
        assertThat(composed).allSatisfy(ticket -> assertThat(ticket.coupons()).isEmpty());
    }

    private static SeasonTicket ticket(long id, long categoryId, Long exchangeId) {
        return new SeasonTicket(id, 5, categoryId, "12A" + id, LocalDate.of(2026, 6, 1), LocalDate.of(2026, 6, 30),
                TicketStatus.ACTIVE, exchangeId);
    }

    /** An in-memory table that records how it is read. */
    private static final class Table<V> {
        private final LongFunction<V> rows;
        private final List<List<Long>> bulkCalls = new ArrayList<>();
        private int singleCalls;

        Table(LongFunction<V> rows) {
            this.rows = rows;
        }

        ReferenceSource<V> source(ReferenceType type) {
            return new ReferenceSource<>(type, null, this::one, this::many);
        }

        private Optional<V> one(long id) {
            singleCalls++;
            return Optional.ofNullable(rows.apply(id));
        }

        private Map<Long, V> many(Collection<Long> ids) {
            bulkCalls.add(List.copyOf(ids));
            Map<Long, V> found = new LinkedHashMap<>();
            ids.forEach(id -> {
                V row = rows.apply(id);
                if (row != null) {
                    found.put(id, row);
                }
            });
            return found;
        }
    }
}
