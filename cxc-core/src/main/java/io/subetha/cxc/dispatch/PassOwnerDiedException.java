package io.subetha.cxc.dispatch;

import io.subetha.cxc.CxcException;

/**
 * The process that owns a pass died (or gave the pass up) while a call to it was pending: the call
 * failed without waiting for its timeout. Whether the handler ran is unknown when it died running.
 */
public class PassOwnerDiedException extends CxcException {

    private final long passId;
    private final long ownerPid;

    public PassOwnerDiedException(long passId, long ownerPid, String message) {
        super(message);
        this.passId = passId;
        this.ownerPid = ownerPid;
    }

    public long passId() {
        return passId;
    }

    /** The owner the call was sent to. */
    public long ownerPid() {
        return ownerPid;
    }
}
