package dev.cdccache.ticketorchestrator.admin;

import java.math.BigDecimal;
import java.time.LocalDate;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import dev.cdccache.ticketorchestrator.reference.CarExchangeDetail;
import dev.cdccache.ticketorchestrator.reference.ParkingLot;
import dev.cdccache.ticketorchestrator.reference.ReferenceRepository;
import dev.cdccache.ticketorchestrator.reference.TicketCategory;
import dev.cdccache.ticketorchestrator.web.NotFoundException;

/**
 * Admin writes of reference data. They only touch the database: no cache is evicted here, on this instance
 * or any other. The change stream does that for every instance, exactly as it does for a batch job or a
 * manual SQL fix.
 */
@RestController
@RequestMapping("/admin")
class ReferenceAdminController {

    private final ReferenceRepository repository;

    ReferenceAdminController(ReferenceRepository repository) {
        this.repository = repository;
    }

    record CategoryBody(@NotBlank @Size(max = 100) String name, @NotNull @DecimalMin("0") BigDecimal monthlyFee,
                        @NotNull @Size(max = 200) String description) {
    }

    record ParkingLotBody(@NotBlank @Size(max = 100) String name, @NotBlank @Size(max = 200) String address,
                          @Min(0) int capacity, @Min(1) long placeId) {
    }

    record CarExchangeBody(@NotBlank @Size(max = 20) String originalCarNumber,
                           @NotBlank @Size(max = 20) String temporaryCarNumber,
                           @NotNull @Size(max = 200) String reason, @NotNull LocalDate validUntil) {
    }

    @PostMapping("/categories")
    @ResponseStatus(HttpStatus.CREATED)
    TicketCategory createCategory(@Valid @RequestBody CategoryBody body) {
        return repository.insertCategory(body.name(), body.monthlyFee(), body.description());
    }

    @PutMapping("/categories/{id}")
    TicketCategory updateCategory(@PathVariable long id, @Valid @RequestBody CategoryBody body) {
        TicketCategory category = new TicketCategory(id, body.name(), body.monthlyFee(), body.description());
        if (!repository.updateCategory(category)) {
            throw new NotFoundException("Category " + id + " does not exist");
        }
        return category;
    }

    @PutMapping("/parking-lots/{id}")
    ParkingLot updateParkingLot(@PathVariable long id, @Valid @RequestBody ParkingLotBody body) {
        ParkingLot lot = new ParkingLot(id, body.name(), body.address(), body.capacity(), body.placeId());
        if (!repository.updateParkingLot(lot)) {
            throw new NotFoundException("Parking lot " + id + " does not exist");
        }
        return lot;
    }

    @PutMapping("/car-exchanges/{id}")
    CarExchangeDetail updateCarExchange(@PathVariable long id, @Valid @RequestBody CarExchangeBody body) {
        CarExchangeDetail exchange = new CarExchangeDetail(id, body.originalCarNumber(), body.temporaryCarNumber(),
                body.reason(), body.validUntil());
        if (!repository.updateCarExchange(exchange)) {
            throw new NotFoundException("Car exchange " + id + " does not exist");
        }
        return exchange;
    }
}
