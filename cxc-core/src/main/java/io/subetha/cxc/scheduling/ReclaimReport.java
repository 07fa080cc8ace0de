package io.subetha.cxc.scheduling;

import java.util.List;

/**
 * What one {@link BackgroundScheduler#watchdogScan()} did; lists only what this scan's own CASes
 * changed.
 *
 * @param requeuedJobIds jobs of dead or silent workers put back in the queue (their attempt fenced
 *     off)
 * @param abandonedSubmits slots a submitter died while filling (its submit never returned an id)
 * @param deadParticipants participant records of dead processes freed
 */
public record ReclaimReport(List<Long> requeuedJobIds, int abandonedSubmits, int deadParticipants) {

    public ReclaimReport {
        requeuedJobIds = List.copyOf(requeuedJobIds);
    }

    public boolean isEmpty() {
        return requeuedJobIds.isEmpty() && abandonedSubmits == 0 && deadParticipants == 0;
    }
}
