package io.subetha.cxc.dispatch;

import io.subetha.cxc.CxcException;

/**
 * The handler of a pass threw, in the process that owns the pass: its class name and message come
 * back to the caller (the stack trace stays in the owner's process).
 */
public class PassFailedException extends CxcException {

    private final long passId;
    private final long ownerPid;
    private final String handlerException;
    private final String handlerMessage;

    public PassFailedException(
            long passId, long ownerPid, String handlerException, String handlerMessage) {
        super(
                "pass "
                        + passId
                        + " failed in its owner, PID "
                        + ownerPid
                        + ": "
                        + handlerException
                        + (handlerMessage.isEmpty() ? "" : ": " + handlerMessage));
        this.passId = passId;
        this.ownerPid = ownerPid;
        this.handlerException = handlerException;
        this.handlerMessage = handlerMessage;
    }

    public long passId() {
        return passId;
    }

    public long ownerPid() {
        return ownerPid;
    }

    /** The class name of what the handler threw: "java.lang.IllegalStateException". */
    public String handlerException() {
        return handlerException;
    }

    /** Its message, empty if it had none (cut to the registry's payload limit). */
    public String handlerMessage() {
        return handlerMessage;
    }
}
