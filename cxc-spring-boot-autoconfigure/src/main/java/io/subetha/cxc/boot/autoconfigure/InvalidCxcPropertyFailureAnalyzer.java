package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a refused {@code cxc.*} value into a startup report naming the property, why, and the fix.
 */
class InvalidCxcPropertyFailureAnalyzer
        extends AbstractFailureAnalyzer<InvalidCxcPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidCxcPropertyException cause) {
        String description =
                "Invalid value '"
                        + cause.value()
                        + "' for property '"
                        + cause.property()
                        + "':\n\n    Reason: "
                        + cause.reason();
        return new FailureAnalysis(description, cause.action(), cause);
    }
}
