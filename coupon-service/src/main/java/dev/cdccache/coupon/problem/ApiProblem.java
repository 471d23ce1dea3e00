package dev.cdccache.coupon.problem;

import org.springframework.http.HttpStatus;

/**
 * A request the service refuses for a reason the client can act on. The web layer turns it into an
 * RFC 7807 problem detail with this status, title and detail.
 */
public class ApiProblem extends RuntimeException {

    private final HttpStatus status;
    private final String title;

    public ApiProblem(HttpStatus status, String title, String detail) {
        super(detail);
        this.status = status;
        this.title = title;
    }

    public HttpStatus status() {
        return status;
    }

    public String title() {
        return title;
    }

    public static ApiProblem couponNotFound(long id) {
        return new ApiProblem(HttpStatus.NOT_FOUND, "Coupon not found", "no coupon has id " + id);
    }

    public static ApiProblem couponCodeNotFound(String code) {
        return new ApiProblem(HttpStatus.NOT_FOUND, "Coupon not found", "no coupon has code '" + code + "'");
    }

    public static ApiProblem placeNotFound(long id) {
        return new ApiProblem(HttpStatus.NOT_FOUND, "Place not found", "no place has id " + id);
    }

    public static ApiProblem badRequest(String detail) {
        return new ApiProblem(HttpStatus.BAD_REQUEST, "Bad request", detail);
    }

    public static ApiProblem conflict(String title, String detail) {
        return new ApiProblem(HttpStatus.CONFLICT, title, detail);
    }

    public static ApiProblem unprocessable(String title, String detail) {
        return new ApiProblem(HttpStatus.UNPROCESSABLE_ENTITY, title, detail);
    }
}
