package dev.cdccache.ticketorchestrator.web;

import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Answers every error as an RFC 7807 problem ({@code application/problem+json}) whose detail tells the caller
 * what to change.
 */
@RestControllerAdvice
class ProblemDetailExceptionHandler extends ResponseEntityExceptionHandler {

    @ExceptionHandler(BadRequestException.class)
    ProblemDetail badRequest(BadRequestException e) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid request", e.getMessage());
    }

    @ExceptionHandler(NotFoundException.class)
    ProblemDetail notFound(NotFoundException e) {
        return problem(HttpStatus.NOT_FOUND, "Not found", e.getMessage());
    }

    @Override
    protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException e, HttpHeaders headers,
                                                        HttpStatusCode status, WebRequest request) {
        String name = e instanceof MethodArgumentTypeMismatchException mismatch ? mismatch.getName()
                : e.getPropertyName();
        String expected = e.getRequiredType() == null ? "another type" : describe(e.getRequiredType());
        ProblemDetail body = problem(HttpStatus.BAD_REQUEST, "Invalid request",
                "Parameter '" + name + "' must be " + expected + ", got '" + e.getValue() + "'");
        return handleExceptionInternal(e, body, headers, HttpStatus.BAD_REQUEST, request);
    }

    private static String describe(Class<?> type) {
        if (type == long.class || type == Long.class || type == int.class || type == Integer.class) {
            return "a whole number";
        }
        if (type == java.time.LocalDate.class) {
            return "a date (yyyy-MM-dd)";
        }
        return "of type " + type.getSimpleName();
    }

    private static ProblemDetail problem(HttpStatus status, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return problem;
    }
}
