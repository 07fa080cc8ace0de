package io.subetha.cxc.boot;

import io.subetha.cxc.CxcException;
import org.jspecify.annotations.Nullable;

/**
 * A {@code cxc.*} property has a value the starter refuses; startup fails with a failure analysis
 * that names the property, the reason and the fix.
 */
public class InvalidCxcPropertyException extends CxcException {

    private final String property;
    private final @Nullable Object value;
    private final String reason;
    private final String action;

    public InvalidCxcPropertyException(
            String property, @Nullable Object value, String reason, String action) {
        super("Invalid value '" + value + "' for property '" + property + "': " + reason);
        this.property = property;
        this.value = value;
        this.reason = reason;
        this.action = action;
    }

    /** The property's name, as in {@code application.properties}: {@code cxc.leader.name}. */
    public String property() {
        return property;
    }

    public @Nullable Object value() {
        return value;
    }

    /** Why the value is refused. */
    public String reason() {
        return reason;
    }

    /** What to do about it. */
    public String action() {
        return action;
    }
}
