package dev.cdccache.coupon.web;

import dev.cdccache.coupon.problem.ApiProblem;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.MessageSourceResolvable;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.validation.method.ParameterErrors;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import org.springframework.beans.TypeMismatchException;

/**
 * Every error as an RFC 7807 problem detail ({@code application/problem+json}), with a {@code detail}
 * that tells the client what to fix. Spring's own handling covers the protocol errors (unknown route,
 * wrong method, missing parameter); the overrides here only sharpen the messages of bad input.
 */
@RestControllerAdvice
class ProblemResponses extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemResponses.class);

    @ExceptionHandler(ApiProblem.class)
    ResponseEntity<ProblemDetail> apiProblem(ApiProblem problem) {
        ProblemDetail body = ProblemDetail.forStatusAndDetail(problem.status(), problem.getMessage());
        body.setTitle(problem.title());
        return ResponseEntity.status(problem.status()).body(body);
    }

    /** Bean validation runs first, so this is a race (e.g. a place deleted meanwhile); nothing was written. */
    @ExceptionHandler(DataIntegrityViolationException.class)
    ResponseEntity<ProblemDetail> integrityViolation(DataIntegrityViolationException e) {
        log.info("Request rejected by a database constraint: {}", e.getMostSpecificCause().getMessage());
        ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
                "the change conflicts with the current data: " + e.getMostSpecificCause().getMessage());
        body.setTitle("Conflict");
        return ResponseEntity.status(HttpStatus.CONFLICT).body(body);
    }

    @Override
    protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException ex, HttpHeaders headers,
            HttpStatusCode status, WebRequest request) {
        String name = ex instanceof MethodArgumentTypeMismatchException mismatch ? mismatch.getName() : ex.getPropertyName();
        String expected = ex.getRequiredType() == null ? "a different type" : describe(ex.getRequiredType());
        ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                "'" + name + "' must be " + expected + "; got '" + ex.getValue() + "'");
        body.setTitle("Bad request");
        return handleExceptionInternal(ex, body, headers, HttpStatus.BAD_REQUEST, request);
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        Throwable cause = ex.getMostSpecificCause();
        String reason = cause == ex ? "the body is missing or empty" : firstLine(cause.getMessage());
        ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                "the request body is not valid JSON for this endpoint: " + reason);
        body.setTitle("Malformed request body");
        return handleExceptionInternal(ex, body, headers, HttpStatus.BAD_REQUEST, request);
    }

    @Override
    protected ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        List<Map<String, String>> errors = ex.getBindingResult().getAllErrors().stream()
                .map(error -> Map.of(
                        "field", error instanceof FieldError field ? field.getField() : error.getObjectName(),
                        "message", String.valueOf(error.getDefaultMessage())))
                .toList();
        return invalid(ex, errors, headers, request);
    }

    @Override
    protected ResponseEntity<Object> handleHandlerMethodValidationException(HandlerMethodValidationException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        List<Map<String, String>> errors = ex.getParameterValidationResults().stream()
                .flatMap(result -> {
                    // A @Valid body validated together with constrained path variables: name its fields.
                    if (result instanceof ParameterErrors bodyErrors) {
                        return bodyErrors.getAllErrors().stream().map(error -> Map.of(
                                "field", error instanceof FieldError field ? field.getField() : "request body",
                                "message", messageOf(error)));
                    }
                    String name = result.getMethodParameter().hasParameterAnnotation(RequestBody.class)
                            ? "request body" : String.valueOf(result.getMethodParameter().getParameterName());
                    return result.getResolvableErrors().stream().map(error -> Map.of("field", name, "message", messageOf(error)));
                })
                .toList();
        return invalid(ex, errors, headers, request);
    }

    private ResponseEntity<Object> invalid(Exception ex, List<Map<String, String>> errors, HttpHeaders headers,
            WebRequest request) {
        String detail = errors.stream().map(error -> error.get("field") + ": " + error.get("message"))
                .sorted().collect(Collectors.joining("; "));
        ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
        body.setTitle("Invalid request");
        body.setProperty("errors", errors);
        return handleExceptionInternal(ex, body, headers, HttpStatus.BAD_REQUEST, request);
    }

    private static String messageOf(MessageSourceResolvable error) {
        return String.valueOf(error.getDefaultMessage());
    }

    private static String describe(Class<?> type) {
        if (type == long.class || type == Long.class || type == int.class || type == Integer.class) {
            return "an integer";
        }
        if (type == java.math.BigDecimal.class) {
            return "a decimal number";
        }
        if (type == java.time.LocalDate.class) {
            return "a date (yyyy-MM-dd)";
        }
        return "of type " + type.getSimpleName();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable content";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
