package dev.cdccache.ticketorchestrator.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/** Bad parameters get a 4xx RFC 7807 problem whose detail says what to change; good ones get a page. */
@ExtendWith(TicketStackExtension.class)
class SearchParameterValidationIT {

    @Test
    void aPageSizeOverTheCapIsRefused(TicketStack stack) {
        assertProblem(stack, "/tickets/search?parkingLotId=" + lot(stack) + "&from=2026-06-01&to=2026-06-30&size=51",
                400, "Parameter 'size' must be between 10 and 50, got 51");
        assertProblem(stack, "/tickets/search?parkingLotId=" + lot(stack) + "&from=2026-06-01&to=2026-06-30&size=9",
                400, "Parameter 'size' must be between 10 and 50, got 9");
    }

    @Test
    void aPeriodThatEndsBeforeItStartsIsRefused(TicketStack stack) {
        assertProblem(stack, "/tickets/search?parkingLotId=" + lot(stack) + "&from=2026-06-30&to=2026-06-01",
                400, "Parameter 'from' (2026-06-30) must not be after 'to' (2026-06-01)");
    }

    @Test
    void anUnknownParkingLotIsNotFound(TicketStack stack) {
        assertProblem(stack, "/tickets/search?parkingLotId=987654&from=2026-06-01&to=2026-06-30", 404,
                "Parking lot 987654 does not exist");
        assertProblem(stack, "/parking-lots/987654", 404, "Parking lot 987654 does not exist");
    }

    @Test
    void nonNumericAndMalformedParametersAreRefused(TicketStack stack) {
        assertProblem(stack, "/tickets/search?parkingLotId=abc&from=2026-06-01&to=2026-06-30", 400,
                "Parameter 'parkingLotId' must be a whole number, got 'abc'");
        assertProblem(stack, "/tickets/search?parkingLotId=1&from=2026-06-01&to=2026-06-30&size=ten", 400,
                "Parameter 'size' must be a whole number, got 'ten'");
        assertProblem(stack, "/tickets/search?parkingLotId=1&from=June&to=2026-06-30", 400,
                "Parameter 'from' must be a date (yyyy-MM-dd), got 'June'");
        assertProblem(stack, "/parking-lots/x1", 400, "Parameter 'id' must be a whole number, got 'x1'");
        assertProblem(stack, "/tickets/search?parkingLotId=1&from=2026-06-01&to=2026-06-30&page=-1", 400,
                "Parameter 'page' must be 0 or more (pages are numbered from 0), got -1");
    }

    @Test
    void aMissingParameterIsNamed(TicketStack stack) {
        HttpResponse<String> response = stack.instanceA().get("/tickets/search?from=2026-06-01&to=2026-06-30");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(OrchestratorInstance.json(response.body()).get("detail").asString()).contains("parkingLotId");
    }

    @Test
    void aValidSearchPagesThroughTheLotsTicketsInOrder(TicketStack stack) {
        OrchestratorInstance instance = stack.instanceA();
        JsonNode first = instance.search(lot(stack), "2026-06-01", "2026-06-30", 0, 10);
        JsonNode second = instance.search(lot(stack), "2026-06-01", "2026-06-30", 1, 10);

        assertThat(first.get("hasNext").asBoolean()).isTrue();
        assertThat(first.get("tickets")).hasSize(10);
        assertThat(second.get("tickets")).hasSize(10);
        JsonNode lastOfFirst = first.get("tickets").get(9);
        JsonNode firstOfSecond = second.get("tickets").get(0);
        assertThat(firstOfSecond.get("startDate").asString())
                .isGreaterThanOrEqualTo(lastOfFirst.get("startDate").asString());
        for (JsonNode ticket : first.get("tickets")) {
            assertThat(ticket.get("parkingLot").get("id").asLong()).isEqualTo(lot(stack));
            assertThat(ticket.get("startDate").asString()).isLessThanOrEqualTo("2026-06-30");
            assertThat(ticket.get("endDate").asString()).isGreaterThanOrEqualTo("2026-06-01");
        }
        assertThat(instance.getJson("/parking-lots/" + lot(stack)).get("placeId").asLong()).isPositive();
        assertThat(instance.getJson("/categories")).hasSizeGreaterThanOrEqualTo(6);
    }

    private static long lot(TicketStack stack) {
        return stack.data().parkingLotIds().get(0);
    }

    private static void assertProblem(TicketStack stack, String pathAndQuery, int status, String detail) {
        HttpResponse<String> response = stack.instanceA().get(pathAndQuery);
        assertThat(response.statusCode()).as(pathAndQuery).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = OrchestratorInstance.json(response.body());
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("detail").asString()).as(pathAndQuery).isEqualTo(detail);
    }
}
