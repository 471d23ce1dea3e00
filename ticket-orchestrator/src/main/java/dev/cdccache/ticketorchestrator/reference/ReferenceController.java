package dev.cdccache.ticketorchestrator.reference;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import dev.cdccache.ticketorchestrator.web.NotFoundException;

/** Cached reads of reference data. */
@RestController
class ReferenceController {

    private final ReferenceSource<ParkingLot> parkingLots;
    private final CategoryCatalog categories;

    ReferenceController(ReferenceSource<ParkingLot> parkingLots, CategoryCatalog categories) {
        this.parkingLots = parkingLots;
        this.categories = categories;
    }

    @GetMapping("/parking-lots/{id}")
    ParkingLot parkingLot(@PathVariable long id) {
        return parkingLots.get(id).orElseThrow(() -> new NotFoundException("Parking lot " + id + " does not exist"));
    }

    @GetMapping("/categories")
    List<TicketCategory> categories() {
        return categories.all();
    }
}
