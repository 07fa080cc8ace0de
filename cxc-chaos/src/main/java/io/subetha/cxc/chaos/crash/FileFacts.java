package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.scheduling.BackgroundScheduler;

/**
 * What the files say after the run and its recovery, read once so that the check runs on plain
 * values.
 */
public record FileFacts(
        long schedulerQueued,
        long schedulerRunning,
        long schedulerDone,
        long fanoutDepth,
        long eventsEmitted,
        long eventsFolded,
        long eventGaps,
        Fold eventState,
        boolean leaseHeld,
        long ledgerHighest,
        long ledgerAccepted,
        long ledgerRejectedStale,
        long ledgerRejectedConflict,
        long regionCapacity,
        long regionUsedBlocks,
        long regionUsedBytes,
        int regionFreeBlocks,
        long regionLargestFree) {

    /** Reads every file of the run; nothing else may be using them. */
    public static FileFacts read(CrashFiles files) {
        try (BackgroundScheduler<Long, Long> scheduler = files.scheduler();
                PriorityFanout<Long> fanout = files.fanout();
                EventStateLog<Long, Fold> events = files.events();
                OwnerLease lease = files.lease();
                FencedLedger ledger = files.ledger();
                SharedRegion region = files.region()) {
            BackgroundScheduler.Counts counts = scheduler.counts();
            long depth = 0;
            for (int p = 0; p < PriorityFanout.MAX_PRIORITIES; p++) {
                depth += fanout.depth(p);
            }
            return new FileFacts(
                    counts.queued(),
                    counts.running(),
                    counts.done(),
                    depth,
                    events.emittedCount(),
                    events.foldedCount(),
                    events.gapCount(),
                    events.readCurrent(),
                    lease.holder(CrashFiles.LEASE_NAME).isPresent(),
                    ledger.highestTerm(),
                    ledger.acceptedWrites(),
                    ledger.rejectedStaleWrites(),
                    ledger.rejectedConflictingWrites(),
                    region.capacity(),
                    region.usedBlocks(),
                    region.usedBytes(),
                    region.freeList().size(),
                    region.largestFreeBlock());
        }
    }
}
