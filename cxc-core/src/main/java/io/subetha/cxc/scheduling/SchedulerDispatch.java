package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.PAUSED_OFFSET;

import io.subetha.cxc.mmf.AtomicBuffer;
import java.time.Instant;
import java.util.Optional;

/**
 * Whether a {@link BackgroundScheduler} hands out jobs, in every process that works its file: an
 * operator's switch, one word of the file ({@link BackgroundSchedulerDescriptor#PAUSED_OFFSET}), 0
 * while dispatching, else the epoch milliseconds it was paused at.
 *
 * <p>While paused, {@link BackgroundScheduler#receive} hands out no job in any process; jobs
 * already running finish (their complete and fail are not refused), submits still queue, the
 * timetable still fires its due entries into the queue and scans still re-queue dead workers' jobs.
 *
 * <p>A setting, not a claim: the word names no process, so a pause outlives the process that made
 * it (and every other) until some process resumes. Each change is one CAS of the word; a resume
 * then rings the workers' doorbell, and a resumer killed before its ring leaves sleepers to find
 * the word at their next scan of their own (at most {@link BackgroundScheduler#SCAN_INTERVAL}).
 */
public final class SchedulerDispatch {

    private final AtomicBuffer body;
    private final Runnable requireOpen;
    private final Runnable wakeWorkers;

    SchedulerDispatch(AtomicBuffer body, Runnable requireOpen, Runnable wakeWorkers) {
        this.body = body;
        this.requireOpen = requireOpen;
        this.wakeWorkers = wakeWorkers;
    }

    /** Whether the scheduler in {@code body} is paused: what a receive looks at first. */
    static boolean isPaused(AtomicBuffer body) {
        return body.getLongVolatile(PAUSED_OFFSET) != 0;
    }

    /**
     * Stops every process's workers from receiving jobs until {@link #resume}.
     *
     * @return true if it dispatched until now, false if it was paused already
     */
    public boolean pause() {
        requireOpen.run();
        return body.compareAndSetLong(PAUSED_OFFSET, 0, Math.max(1, System.currentTimeMillis()));
    }

    /**
     * Lets every process's workers receive jobs again, and wakes those asleep.
     *
     * @return true if it was paused, false if it dispatched already
     */
    public boolean resume() {
        requireOpen.run();
        while (true) {
            long paused = body.getLongVolatile(PAUSED_OFFSET);
            if (paused == 0) {
                return false;
            }
            if (body.compareAndSetLong(PAUSED_OFFSET, paused, 0)) {
                wakeWorkers.run();
                return true;
            }
        }
    }

    public boolean isPaused() {
        return isPaused(body);
    }

    /** When the scheduler was paused, or empty while it dispatches. */
    public Optional<Instant> pausedSince() {
        long paused = body.getLongVolatile(PAUSED_OFFSET);
        return paused == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(paused));
    }
}
