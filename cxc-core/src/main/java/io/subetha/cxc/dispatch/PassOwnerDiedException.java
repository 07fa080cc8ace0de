package io.subetha.cxc.dispatch;

import io.subetha.cxc.CxcException;

/**
 * The owner of a pass changed while a call to it was pending: the process that owned it died, or
 * gave the pass up (a standby may have taken it over). The call failed without waiting for its
 * timeout. {@link #mayHaveRun()} says whether the handler had started: when it had not, the call
 * may be retried (the new owner answers it; {@link PassRegistry#execute} already retried once a new
 * owner was there); when it had, it may have run, and only an idempotent call should be retried.
 */
public class PassOwnerDiedException extends CxcException {

    private final long passId;
    private final long ownerPid;
    private final boolean mayHaveRun;

    /** Whether the handler ran is not known: {@link #mayHaveRun()} answers true. */
    public PassOwnerDiedException(long passId, long ownerPid, String message) {
        this(passId, ownerPid, true, message);
    }

    public PassOwnerDiedException(long passId, long ownerPid, boolean mayHaveRun, String message) {
        super(message);
        this.passId = passId;
        this.ownerPid = ownerPid;
        this.mayHaveRun = mayHaveRun;
    }

    /**
     * Whether the handler may have run: true when the owner had taken the request (or that is not
     * known); false when it had not, so retrying cannot run it twice.
     */
    public boolean mayHaveRun() {
        return mayHaveRun;
    }

    public long passId() {
        return passId;
    }

    /** The owner the call was sent to. */
    public long ownerPid() {
        return ownerPid;
    }
}
