package io.subetha.cxc.dispatch;

import io.subetha.cxc.CxcException;

/** A process tried to register a pass id that another live process owns. */
public class PassOwnedException extends CxcException {

    private final long passId;
    private final long ownerPid;

    public PassOwnedException(long passId, long ownerPid, String message) {
        super(message);
        this.passId = passId;
        this.ownerPid = ownerPid;
    }

    public long passId() {
        return passId;
    }

    /** The live process that owns it. */
    public long ownerPid() {
        return ownerPid;
    }
}
