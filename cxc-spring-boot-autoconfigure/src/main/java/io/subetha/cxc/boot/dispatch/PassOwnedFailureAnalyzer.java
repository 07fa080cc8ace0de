package io.subetha.cxc.boot.dispatch;

import io.subetha.cxc.dispatch.PassOwnedException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup that failed because a {@code @PassId} handler's id is served by another live
 * process with a different handler: copies of one service stand by for each other's handlers, but
 * two different handlers cannot share an id in one registry.
 */
public final class PassOwnedFailureAnalyzer extends AbstractFailureAnalyzer<PassOwnedException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PassOwnedException cause) {
        return new FailureAnalysis(
                "Pass id "
                        + cause.passId()
                        + " is served by live process PID "
                        + cause.ownerPid()
                        + " with a different handler, so this application's @PassId("
                        + cause.passId()
                        + ") handler cannot be registered: "
                        + cause.getMessage(),
                "Give one of the two handlers another id (@PassId(value = ...)), or put it in"
                        + " another pass registry (declare cxc.pass-registries.<name>.max-passes"
                        + " and name it with @PassId(registry = \"<name>\")). Copies of the same"
                        + " service (the same handler bean name and class) need nothing: they"
                        + " stand by and take the id over when its owner stops.",
                cause);
    }
}
