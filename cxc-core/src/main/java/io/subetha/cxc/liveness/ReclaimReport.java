package io.subetha.cxc.liveness;

import java.util.List;

/**
 * What one {@link FailoverWatchdog#scan()} did. Lists only the moves this scan's own CASes made: a
 * work id moved by a concurrent scanner appears in that scanner's report, never in both.
 *
 * @param moves work ids moved from a stale or dead slot to a live one
 * @param stranded work ids whose owner is stale or dead but that stayed put because no live slot
 *     could take them; a later scan moves them once a process is live
 * @param abandonedClaims work entries freed because their assigner died in the middle of {@link
 *     FailoverWatchdog#assign} (the assign never returned, so no work id was handed out)
 */
public record ReclaimReport(List<WorkMove> moves, List<Long> stranded, int abandonedClaims) {

    public ReclaimReport {
        moves = List.copyOf(moves);
        stranded = List.copyOf(stranded);
    }

    /** One work id moved in one step. {@code fromPid} is 0 when the dead owner is not known. */
    public record WorkMove(long workId, int fromSlot, long fromPid, int toSlot, long toPid) {}

    /** The work ids this scan moved, in pool order. */
    public List<Long> movedWorkIds() {
        return moves.stream().map(WorkMove::workId).toList();
    }

    /** Whether the scan found nothing to do. */
    public boolean isEmpty() {
        return moves.isEmpty() && stranded.isEmpty() && abandonedClaims == 0;
    }
}
