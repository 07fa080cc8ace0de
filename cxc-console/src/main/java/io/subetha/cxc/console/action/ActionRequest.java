package io.subetha.cxc.console.action;

import io.subetha.cxc.console.ConsoleRequestException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One action's arguments, as the page sent them (form fields or query parameters), and who asked.
 *
 * @param who the principal's name, or "anonymous" where none is known, and the client's address
 */
public record ActionRequest(Map<String, String> arguments, String who) {

    public ActionRequest {
        arguments = Map.copyOf(arguments);
    }

    /** An argument that must be there. */
    public String required(String name) {
        String value = arguments.get(name);
        if (value == null || value.isBlank()) {
            throw ConsoleRequestException.badRequest("argument \"" + name + "\" is missing");
        }
        return value;
    }

    /** A whole-number argument that must be there. */
    public long requiredLong(String name) {
        String value = required(name);
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw ConsoleRequestException.badRequest(
                    "argument \"" + name + "\" must be a whole number, got \"" + value + "\"");
        }
    }

    public @Nullable String optional(String name) {
        return arguments.get(name);
    }
}
