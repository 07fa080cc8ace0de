package io.subetha.cxc.dispatch;

import io.subetha.cxc.CxcException;

/**
 * A process tried to register a pass id that another live process owns with another handler (or
 * without saying which handler it serves). Copies of one service registering the same handler under
 * the same key do not get it: they stand by ({@link PassRegistry#registerOrStandBy}).
 */
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
