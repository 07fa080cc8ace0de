package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.FanoutItem;
import io.subetha.cxc.fanout.FanoutClaim;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.wait.Backoff;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One declared fan-out's worker threads in this process: each claims one item at a time from the
 * highest non-empty level, runs the handler, and acknowledges it; an item whose handler threw is
 * held for its back-off and returned to its level, or dead-lettered on its last attempt ({@link
 * FanoutRetry}). Idle, a worker parks with {@link Backoff} (a fan-out has no doorbell).
 */
final class FanoutPool<T> {

    private static final Log logger = LogFactory.getLog(FanoutPool.class);

    /** The longest an idle worker parks between two claims: how late it sees a new item. */
    private static final long MAX_IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private static final long MIN_IDLE_PARK_NANOS = 20_000;

    /**
     * Failing items whose count this process keeps: the oldest is forgotten past this (an item
     * another process handled meanwhile is never seen here again).
     */
    static final int MAX_COUNTED_ITEMS = 4096;

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
    private final Map<T, Integer> failures =
            new LinkedHashMap<>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<T, Integer> eldest) {
                    return size() > MAX_COUNTED_ITEMS;
                }
            };
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
        taking = false;
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
        Backoff idle = null;
        while (taking) {
            FanoutClaim<T> claim;
            try {
                claim = fanout.claimHighest(1);
            } catch (RuntimeException e) {
                if (fanout.isClosed()) {
                    return;
                }
                logger.error("cxc fan-out " + name + ": claim failed", e);
                claim = null;
            }
            if (claim == null || claim.isEmpty()) {
                if (idle == null) {
                    idle = Backoff.parking(MIN_IDLE_PARK_NANOS, MAX_IDLE_PARK_NANOS);
                }
                idle.idle();
                continue;
            }
            idle = null;
            run(claim);
        }
    }

    private void run(FanoutClaim<T> claim) {
        T item = claim.items().get(0);
        FanoutItem<T> given = new FanoutItem<>(item, claim.priority(), failuresOf(item) + 1);
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
        forget(item);
        acknowledge(claim, handled);
    }

    private void failed(FanoutClaim<T> claim, FanoutItem<T> given, Exception e) {
        if (given.attempt() >= retry.maxAttempts()) {
            forget(given.item());
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
        synchronized (failures) {
            failures.put(given.item(), given.attempt());
        }
        Duration held = retry.backoffAfter(given.attempt());
        logger.debug("cxc fan-out " + name + ": " + given + " failed; returned after " + held, e);
        try {
            // Held meanwhile, so no worker (here or elsewhere) runs it again before its back-off.
            stopped.await(held.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        claim.release();
        returned.incrementAndGet();
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

    private int failuresOf(T item) {
        synchronized (failures) {
            return failures.getOrDefault(item, 0);
        }
    }

    private void forget(T item) {
        synchronized (failures) {
            failures.remove(item);
        }
    }
}
