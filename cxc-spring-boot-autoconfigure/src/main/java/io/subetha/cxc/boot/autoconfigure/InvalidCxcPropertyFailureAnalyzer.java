package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * Boot's report of an invalid property, for a refused {@code cxc.*} value: the value as typed and
 * its origin (the file and line, the command-line argument, the environment variable), taken from
 * the environment's {@link ConfigurationPropertySource}s as Boot's own {@code
 * InvalidConfigurationPropertyValueFailureAnalyzer} takes them, with the reason in the description
 * and the starter's fix as the action (Boot's analyzer would only say "Review the value"). Ordered
 * before Boot's analyzer, which would otherwise take the exception: it is Boot's type.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class InvalidCxcPropertyFailureAnalyzer
        extends AbstractFailureAnalyzer<InvalidCxcPropertyException> {

    private final @Nullable Environment environment;

    /**
     * @param environment the failed application's, as Boot passes it; without one, the report has
     *     no origin and shows the value as the starter saw it
     */
    InvalidCxcPropertyFailureAnalyzer(@Nullable Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidCxcPropertyException cause) {
        ConfigurationProperty typed = find(cause.property());
        Object value = typed == null ? cause.value() : typed.getValue();
        Origin origin = typed == null ? null : typed.getOrigin();
        StringBuilder description =
                new StringBuilder("Invalid value '")
                        .append(value)
                        .append("' for configuration property '")
                        .append(cause.property())
                        .append("'");
        if (origin != null) {
            description.append(" (originating from '").append(origin).append("')");
        }
        description
                .append(". Validation failed for the following reason:\n\n    Reason: ")
                .append(cause.reason());
        return new FailureAnalysis(description.toString(), cause.action(), cause);
    }

    /** The property as the highest-precedence source that sets it has it, or null. */
    private @Nullable ConfigurationProperty find(String property) {
        if (environment == null || !ConfigurationPropertyName.isValid(property)) {
            return null;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            ConfigurationProperty found = source.getConfigurationProperty(name);
            if (found != null) {
                return found;
            }
        }
        return null;
    }
}
