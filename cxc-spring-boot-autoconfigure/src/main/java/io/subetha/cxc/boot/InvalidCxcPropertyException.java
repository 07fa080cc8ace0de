package io.subetha.cxc.boot;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * A {@code cxc.*} property has a value the starter refuses. Boot's own {@link
 * InvalidConfigurationPropertyValueException}, so startup fails with Boot's report of an invalid
 * property (the value as typed and where it came from: {@code originating from 'URL
 * [file:…/application.properties] - 3:26'}); the starter's analyzer adds the fix as the report's
 * action, and Boot's own analyzer, were ours absent, still shows the reason and the fix.
 */
public class InvalidCxcPropertyException extends InvalidConfigurationPropertyValueException {

    private final String property;
    private final @Nullable Object value;
    private final String reason;
    private final String action;

    public InvalidCxcPropertyException(
            String property, @Nullable Object value, String reason, String action) {
        super(property, value, reason + ". " + action);
        this.property = property;
        this.value = value;
        this.reason = reason;
        this.action = action;
    }

    @Override
    public String getMessage() {
        return "Invalid value '" + value + "' for property '" + property + "': " + reason;
    }

    /** The property's name, as in {@code application.properties}: {@code cxc.leader.name}. */
    public String property() {
        return property;
    }

    /** The value as the starter saw it (bound, or as typed where it binds it itself). */
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
