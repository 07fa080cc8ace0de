package io.subetha.cxc.console;

/**
 * A request the console refuses, with the HTTP status that says why (400 bad input, 404 unknown
 * name, 409 not possible now): answered as JSON naming the problem, never with a stack trace.
 */
public final class ConsoleRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;

    public ConsoleRequestException(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public static ConsoleRequestException badRequest(String message) {
        return new ConsoleRequestException(400, message);
    }

    public static ConsoleRequestException notFound(String message) {
        return new ConsoleRequestException(404, message);
    }

    public static ConsoleRequestException conflict(String message) {
        return new ConsoleRequestException(409, message);
    }

    public int status() {
        return status;
    }
}
