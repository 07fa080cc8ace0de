package io.subetha.cxc.console.web;

import io.subetha.cxc.console.ConsoleRequestException;
import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * How the console answers what it refuses: JSON with the status and a sentence naming the problem,
 * never a stack trace; an unexpected failure is logged here and answered 500 without its details.
 */
@RestControllerAdvice(assignableTypes = {ConsoleApi.class, ConsoleActions.class, ConsolePage.class})
@Order(Ordered.HIGHEST_PRECEDENCE)
public class ConsoleErrors {

    private static final Log logger = LogFactory.getLog(ConsoleErrors.class);

    /** The body of every refusal. */
    public record Problem(int status, String error, String message, String path) {}

    @ExceptionHandler(ConsoleRequestException.class)
    ResponseEntity<Problem> refused(ConsoleRequestException e, HttpServletRequest request) {
        return problem(e.status(), e.getMessage(), request);
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<Problem> mistyped(
            MethodArgumentTypeMismatchException e, HttpServletRequest request) {
        return problem(
                400,
                "argument \""
                        + e.getName()
                        + "\" must be a whole number, got \""
                        + e.getValue()
                        + "\"",
                request);
    }

    @ExceptionHandler(MissingServletRequestParameterException.class)
    ResponseEntity<Problem> missing(
            MissingServletRequestParameterException e, HttpServletRequest request) {
        return problem(400, "argument \"" + e.getParameterName() + "\" is missing", request);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<Problem> failed(Exception e, HttpServletRequest request) {
        logger.warn("cxc console: " + request.getRequestURI() + " failed", e);
        return problem(
                500, "the console failed to answer; the application's log says why", request);
    }

    private static ResponseEntity<Problem> problem(
            int status, String message, HttpServletRequest request) {
        HttpStatus reason = HttpStatus.valueOf(status);
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_JSON)
                .body(
                        new Problem(
                                status,
                                reason.getReasonPhrase(),
                                message,
                                request.getRequestURI()));
    }
}
