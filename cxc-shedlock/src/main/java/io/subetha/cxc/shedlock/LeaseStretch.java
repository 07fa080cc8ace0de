package io.subetha.cxc.shedlock;

import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.LeaseBackend.Held;
import io.subetha.cxc.lease.OwnerLease;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a lease held up to a {@code lockAtMostFor} longer than a lease may last ({@link
 * OwnerLease#MAX_AT_MOST}): the lease is taken for the longest it may last and extended every half
 * of that, each time to the configured end or the longest, whichever comes first, so it ends when
 * the configuration says. A dead process renews nothing, and its lease is freed at once anyway.
 */
final class LeaseStretch {

    /** One daemon thread for every provider of the process: a renewal is due every 12 days. */
    private static final ScheduledExecutorService RENEWALS = renewals();

    private LeaseStretch() {}

    /**
     * Renews {@code lease} until {@code endNanos} ({@link System#nanoTime()}), each renewal for at
     * most {@code longest}; cancel the answer when the lock ends.
     */
    static Future<?> until(LeaseBackend leases, Held lease, long endNanos, Duration longest) {
        long period = Math.max(1, longest.toNanos() / 2);
        Runnable renew =
                () -> {
                    long left = endNanos - System.nanoTime();
                    if (left <= 0
                            || !leases.extend(
                                    lease, Duration.ofNanos(Math.min(left, longest.toNanos())))) {
                        throw new Finished(); // ends the periodic task
                    }
                };
        return RENEWALS.scheduleAtFixedRate(renew, period, period, TimeUnit.NANOSECONDS);
    }

    /** Whether a lease of {@code atMost} needs stretching beyond {@code longest}. */
    static boolean needed(Duration atMost, Duration longest) {
        return atMost.compareTo(longest) > 0;
    }

    private static ScheduledExecutorService renewals() {
        ScheduledThreadPoolExecutor executor =
                new ScheduledThreadPoolExecutor(
                        1,
                        task -> {
                            Thread thread = new Thread(task, "cxc-shedlock-lease-stretch");
                            thread.setDaemon(true);
                            return thread;
                        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /** Thrown by a renewal whose lease reached its end or was lost: stops its repetition. */
    private static final class Finished extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Finished() {
            super(null, null, false, false);
        }
    }
}
