package io.subetha.cxc.dispatch;

import io.subetha.cxc.CxcException;

/** A call named a pass id that no process has registered: it fails at once. */
public class PassNotRegisteredException extends CxcException {

    private final long passId;

    public PassNotRegisteredException(long passId, String message) {
        super(message);
        this.passId = passId;
    }

    public long passId() {
        return passId;
    }
}
