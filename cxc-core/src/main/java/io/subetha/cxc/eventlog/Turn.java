package io.subetha.cxc.eventlog;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.wait.Backoff;
import io.subetha.cxc.wait.Deadline;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A turn one process holds at a time, kept in an {@link OwnerRecord}: a log's drain turn, a reader
 * table's naming turn. Claimed by CAS when free or when its holder is dead (at once, through {@code
 * /proc}); a live holder is waited for, with a bound.
 */
final class Turn {

    private static final long PID = Pids.current();
    private static final long START_TIME = OwnerRecord.startTimeOf(PID);

    private Turn() {}

    /**
     * Claims the turn at {@code record} of {@code body}, waiting at most {@code wait} for a live
     * holder.
     *
     * @param what the turn, for the timeout's message: "the drain turn"
     * @return the owner word installed: pass it to {@link #release}
     * @throws CxcTimeoutException if a live holder kept it for all of {@code wait}
     */
    static long claim(AtomicBuffer body, int record, Duration wait, Path file, String what) {
        Deadline deadline = Deadline.after(wait);
        Backoff backoff = Backoff.parking(Backoff.MIN_PARK_NANOS, Backoff.MAX_PARK_NANOS);
        while (true) {
            long word = OwnerRecord.ownerWord(body, record);
            if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                    || OwnerRecord.isDead(body, record, word)) {
                long mine = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(word));
                if (OwnerRecord.claim(body, record, word, mine, START_TIME, System::nanoTime)) {
                    return mine;
                }
                continue;
            }
            if (deadline.passed()) {
                throw new CxcTimeoutException(
                        "waited "
                                + wait
                                + " for "
                                + what
                                + " of "
                                + file
                                + ", held by live PID "
                                + OwnerRecord.pid(word)
                                + (OwnerRecord.pid(word) == PID
                                        ? " (another thread of this process)"
                                        : "")
                                + " since its claim (generation "
                                + OwnerRecord.key(word)
                                + ")");
            }
            backoff.idle();
        }
    }

    static void release(AtomicBuffer body, int record, long mine) {
        OwnerRecord.release(body, record, mine);
    }
}
