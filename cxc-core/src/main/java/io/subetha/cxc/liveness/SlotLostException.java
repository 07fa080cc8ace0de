package io.subetha.cxc.liveness;

import io.subetha.cxc.CxcException;

/**
 * A heartbeat slot or barrier participant this handle held was taken away: its heartbeat went stale
 * beyond the grace window (a long pause, a frozen process) and another process reclaimed or dropped
 * it. The holder must register or join again; work it owned may have moved on.
 */
public class SlotLostException extends CxcException {

    public SlotLostException(String message) {
        super(message);
    }
}
