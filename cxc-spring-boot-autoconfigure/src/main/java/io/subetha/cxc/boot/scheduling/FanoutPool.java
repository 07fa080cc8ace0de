package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.FanoutItem;
import io.subetha.cxc.fanout.FanoutClaim;
import io.subetha.cxc.fanout.PriorityFanout;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One declared fan-out's worker threads in this process: each claims one item at a time from the
 * highest non-empty level, runs the handler, and acknowledges it; an item whose handler threw is
 * held for its back-off and returned to its level, or dead-lettered on its last attempt ({@link
 * FanoutRetry}), counted in the fan-out's file across processes ({@link FanoutClaim#attempt}).
 *
 * <p>Idle, a worker sleeps on the fan-out's doorbell ({@link PriorityFanout#claimHighest(int,
 * Duration)}) and starts an item as soon as a submit in any process rings it. Stopping wakes the
 * idle workers by interrupting them, and only them: a worker is interruptible just while it waits
 * for an item (under the pool's lock on both edges), so a handler is never interrupted by a stop
 * before its shutdown-timeout.
 */
final class FanoutPool<T> {

    private static final Log logger = LogFactory.getLog(FanoutPool.class);

    /**
     * One wait of an idle worker; it waits again after it (a ring ends it at once, a stop by
     * interruption).
     */
    private static final Duration IDLE_WAIT = Duration.ofSeconds(1);

    private final String name;
    private final PriorityFanout<T> fanout;
    private final FanoutHandler<T> handler;
    private final WorkerPoolSettings settings;
    private final FanoutRetry retry;
    private final WorkerThreads threads;
    private final AtomicLong handled = new AtomicLong();
    private final AtomicLong returned = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    // Workers waiting for an item: the ones a stop interrupts. Guarded by itself, with taking.
    private final Set<Thread> waiting = ConcurrentHashMap.newKeySet();
    private volatile boolean taking;
    // Counted down when the pool stops taking: cuts short an item's back-off, so it returns at
    // once.
    private volatile CountDownLatch stopped = new CountDownLatch(0);

    private FanoutPool(
            String name,
            PriorityFanout<T> fanout,
            FanoutHandler<T> handler,
            WorkerPoolSettings settings,
            FanoutRetry retry) {
        this.name = name;
        this.fanout = fanout;
        this.handler = handler;
        this.settings = settings;
        this.retry = retry;
        this.threads = new WorkerThreads("cxc-fanout-" + name + "-");
    }

    /** The handler's items are the fan-out's: the bean was opened with its codec. */
    @SuppressWarnings("unchecked")
    static <T> FanoutPool<T> of(
            String name,
            PriorityFanout<?> fanout,
            FanoutHandler<?> handler,
            WorkerPoolSettings settings,
            FanoutRetry retry) {
        return new FanoutPool<>(
                name, (PriorityFanout<T>) fanout, (FanoutHandler<T>) handler, settings, retry);
    }

    String name() {
        return name;
    }

    synchronized void start() {
        if (taking) {
            return;
        }
        stopped = new CountDownLatch(1);
        taking = true;
        threads.start(settings.workers(), this::work);
    }

    void stopTaking() {
        synchronized (waiting) {
            taking = false;
            waiting.forEach(Thread::interrupt); // waiting for an item, not handling one
        }
        stopped.countDown();
    }

    void heartbeat() {
        if (taking && !fanout.isClosed()) {
            fanout.heartbeat();
        }
    }

    void awaitStopped() {
        threads.awaitStopped(
                settings.shutdownTimeout(),
                logger,
                "cxc fan-out " + name,
                "still handles an item after "
                        + settings.shutdownTimeout()
                        + " (shutdown-timeout): interrupted; its item returns to its level as the"
                        + " fan-out closes");
    }

    Map<String, Long> counts() {
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("workers", (long) threads.size());
        counts.put("handled", handled.get());
        counts.put("returned", returned.get());
        counts.put("dead-lettered", deadLettered.get());
        counts.put("refused", refused.get());
        return counts;
    }

    private void work() {
        Thread me = Thread.currentThread();
        while (true) {
            synchronized (waiting) {
                if (!taking) {
                    return;
                }
                waiting.add(me);
            }
            FanoutClaim<T> claim = null;
            RuntimeException failed = null;
            try {
                claim = fanout.claimHighest(1, IDLE_WAIT);
            } catch (RuntimeException e) {
                failed = e;
            } finally {
                synchronized (waiting) {
                    waiting.remove(me);
                    Thread.interrupted(); // a stop's, delivered only while waiting: never a
                    // handler's
                }
            }
            if (failed != null) {
                if (fanout.isClosed()) {
                    return;
                }
                logger.error("cxc fan-out " + name + ": claim failed", failed);
                pause(IDLE_WAIT); // not at once: a damaged file fails every claim
                continue;
            }
            if (claim.isEmpty()) {
                continue;
            }
            if (!taking) {
                claim.release(); // claimed as the stop came: the next process takes it at once
                return;
            }
            run(claim);
        }
    }

    private void run(FanoutClaim<T> claim) {
        T item = claim.items().get(0);
        FanoutItem<T> given = new FanoutItem<>(item, claim.priority(), claim.attempt(0));
        try {
            handler.handle(given);
        } catch (Exception e) {
            if (!taking
                    && (e instanceof InterruptedException
                            || Thread.currentThread().isInterrupted())) {
                // Interrupted by shutdown: not a failure; the item goes back to its level.
                claim.release();
                logger.info(
                        "cxc fan-out "
                                + name
                                + ": "
                                + given
                                + " interrupted by shutdown; returned to its level");
                return;
            }
            failed(claim, given, e);
            return;
        }
        acknowledge(claim, handled);
    }

    private void failed(FanoutClaim<T> claim, FanoutItem<T> given, Exception e) {
        if (given.attempt() >= retry.maxAttempts()) {
            try {
                handler.onDeadLetter(given, e);
            } catch (RuntimeException again) {
                again.addSuppressed(e);
                logger.error(
                        "cxc fan-out " + name + ": onDeadLetter threw for " + given + "", again);
            }
            acknowledge(claim, deadLettered);
            return;
        }
        Duration held = retry.backoffAfter(given.attempt());
        logger.debug("cxc fan-out " + name + ": " + given + " failed; returned after " + held, e);
        // Held meanwhile, so no worker (here or elsewhere) runs it again before its back-off; a
        // back-off is this process's wait, its length follows the attempts counted in the file.
        pause(held);
        claim.release();
        returned.incrementAndGet();
    }

    /** Waits {@code time}, or until the pool stops taking. */
    private void pause(Duration time) {
        try {
            stopped.await(time.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Acknowledges, counting under {@code outcome}; refused if it was returned meanwhile. */
    private void acknowledge(FanoutClaim<T> claim, AtomicLong outcome) {
        if (claim.ack()) {
            outcome.incrementAndGet();
        } else {
            // This process was judged dead or silent meanwhile: the item is delivered elsewhere.
            refused.incrementAndGet();
        }
    }
}
