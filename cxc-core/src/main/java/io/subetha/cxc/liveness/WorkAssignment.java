package io.subetha.cxc.liveness;

/**
 * A work id and the heartbeat slot that owns it, as read from a {@link FailoverWatchdog}.
 *
 * @param workId the work id
 * @param slot the owning heartbeat slot
 * @param generation the owning slot's generation: the owner is that slot's holder only while the
 *     slot's generation is still this one
 */
public record WorkAssignment(long workId, int slot, int generation) {}
