package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.NEXT_DUE_OFFSET;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.wait.Deadline;
import io.subetha.cxc.wake.Doorbell;
import io.subetha.cxc.wake.WaitPhases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A {@link BackgroundScheduler}'s doorbell ({@link Doorbell}, its region in the file): idle workers
 * of every process sleep on it, and every write that makes a job receivable rings it (a submit's or
 * a fire's {@code QUEUED} CAS, a retry's, a scan's or a rerun's re-queue, a lowered next-due word).
 * With nobody asleep a ring is one fence and one read.
 *
 * <p><b>What a sleeper wakes for</b> besides a ring: the clock. A retry waiting out its backoff,
 * the timetable's next due time (one word) and the handle's next scan are times, not writes, so
 * each sleep is bounded by the earliest of them; a ring for a lowered next-due word ends the sleep,
 * and the next one is bounded by the new word. A timetable entry due but not fired by this
 * process's look (a kind it cannot read, a full ring) wakes it again only once the word moves or a
 * scan is due: no look is repeated in a spin. A sleeper that slept through the scan's time and
 * finds that another caller of the handle scanned meanwhile (the starter's ticker scans every tick)
 * leaves the scans to it, and wakes for them only every {@link #OTHERS_SCAN_CHECK_NANOS} to see
 * that they go on: an idle pool wakes about once a second, not twenty times.
 */
final class WorkerDoorbell implements AutoCloseable {

    private static final long MILLI = 1_000_000;

    /**
     * How long an idle sleeper goes without waking for its handle's scan while another caller of
     * the handle (the starter's ticker) scans for it: at the end it looks whether that one still
     * does, and scans again itself if not.
     */
    static final long OTHERS_SCAN_CHECK_NANOS = 1_000_000_000;

    private final Doorbell doorbell;
    private final AtomicBuffer body;
    private final JobDispatcher<?> dispatcher;
    private final LongSupplier nextScanAt;
    private final BooleanSupplier closed;

    /**
     * @param nextScanAt when the handle's next scan of its own is due, {@code System.nanoTime()}
     * @param closed whether the handle is closed: its sleepers return
     */
    WorkerDoorbell(
            AtomicBuffer body,
            int region,
            Path file,
            JobDispatcher<?> dispatcher,
            LongSupplier nextScanAt,
            BooleanSupplier closed) {
        this.doorbell = new Doorbell(body, region, file);
        this.body = body;
        this.dispatcher = dispatcher;
        this.nextScanAt = nextScanAt;
        this.closed = closed;
    }

    /** Wakes every announced sleeper; after a write that makes a job receivable. */
    void ring() {
        doorbell.ringIfAnnounced();
    }

    /**
     * Looks for a job until one is found, {@code timeout} passes, {@code giveUp} says so, the
     * handle closes or the thread is interrupted; sleeps on the doorbell between looks.
     *
     * @param look one receive: fires what the timetable has due, scans when due, claims a job
     */
    <J> Optional<Job<J>> receive(
            Supplier<Optional<Job<J>>> look, Duration timeout, BooleanSupplier giveUp) {
        long deadline = System.nanoTime() + Deadline.nanos(timeout);
        WaitPhases phases = WaitPhases.DEFAULT; // the first sleep only: a peer's quick submit
        // Whether the handle's scan came from elsewhere (the starter's ticker, another worker)
        // while this sleeper slept through the scan's time: it then wakes for the scan only every
        // OTHERS_SCAN_CHECK_NANOS. The one that scanned keeps the scan's pace; a sleeper that
        // finds the scans stopped scans itself again.
        boolean othersScan = false;
        while (true) {
            Optional<Job<J>> job = look.get();
            long now = System.nanoTime();
            if (job.isPresent()
                    || giveUp.getAsBoolean()
                    || closed.getAsBoolean()
                    || now - deadline >= 0
                    || Thread.currentThread().isInterrupted()) {
                return job;
            }
            long nextDue = body.getLongVolatile(NEXT_DUE_OFFSET);
            long scanAt = nextScanAt.getAsLong();
            long wakeAt = wakeAt(now, deadline, nextDue, othersScan, scanAt);
            doorbell.await(
                    phases,
                    () ->
                            closed.getAsBoolean()
                                    || giveUp.getAsBoolean()
                                    || body.getLongVolatile(NEXT_DUE_OFFSET) != nextDue
                                    || dispatcher.mayFind(System.nanoTime())
                                    || System.nanoTime() - wakeAt >= 0,
                    Duration.ofNanos(deadline - now),
                    Duration.ofNanos(Math.max(wakeAt - now, 0)));
            if (closed.getAsBoolean()) {
                return Optional.empty(); // closed while asleep: its jobs are re-queued, not ours
            }
            long after = System.nanoTime();
            if (after - scanAt >= 0) {
                // Slept past the scan's time: whether another caller scanned meanwhile.
                othersScan = nextScanAt.getAsLong() != scanAt;
            }
            phases = WaitPhases.SLEEP_AT_ONCE;
        }
    }

    /** The earliest clock a sleeper wakes for: its deadline, a scan, a retry, the next due. */
    private long wakeAt(long now, long deadline, long nextDue, boolean othersScan, long scanAt) {
        // While another caller scans (the starter's ticker, every tick), a dead worker's job is
        // repaired by that one's scan: the sleeper only checks now and then that it still does.
        long scan = othersScan ? Math.max(scanAt, now + OTHERS_SCAN_CHECK_NANOS) : scanAt;
        long wakeAt = earliest(deadline, scan);
        long retry = dispatcher.retryDueAt();
        if (retry != Long.MAX_VALUE) {
            wakeAt = earliest(wakeAt, retry);
        }
        long untilDue = nextDue - System.currentTimeMillis();
        if (nextDue != Long.MAX_VALUE && untilDue > 0 && untilDue < (wakeAt - now) / MILLI + 1) {
            // Due but not fired by the look just made: left to the word's next move or the scan.
            wakeAt = earliest(wakeAt, now + untilDue * MILLI);
        }
        return wakeAt;
    }

    private static long earliest(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    /** How many workers are announced on the doorbell: asleep, or about to be. */
    int sleeping() {
        return doorbell.announcedCount();
    }

    /** Frees the idle lent waiters' slots and sockets, and wakes this process's sleepers. */
    @Override
    public void close() {
        doorbell.close();
        doorbell.ringIfAnnounced(); // sleepers of this handle look at closed and return
    }
}
