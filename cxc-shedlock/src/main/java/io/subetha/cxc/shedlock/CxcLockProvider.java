package io.subetha.cxc.shedlock;

import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.LeaseBackend.Held;
import io.subetha.cxc.lease.OwnerLease;
import java.time.Duration;
import java.time.Instant;
import java.util.Deque;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Future;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;

/**
 * A ShedLock {@link ExtensibleLockProvider} over an {@link OwnerLease} file: {@code @SchedulerLock}
 * across the processes of one host with no database. Each lock name is a lease name: up to 64 UTF-8
 * bytes (ShedLock's JDBC name column) as it is, a longer one under its SHA-256.
 *
 * <p>ShedLock's semantics hold: {@link #lock} returns a lock or empty; locks are not reentrant (a
 * held name is refused to every caller, the holder's own thread included); {@code lockAtMostFor}
 * bounds a holder that never unlocks; {@code unlock} before {@code lockAtLeastFor} keeps the name
 * held until it has passed, even if the holder then dies; {@code extend} moves both. Beyond a
 * database's: a holder whose process died frees its lock at once (not after {@code lockAtMostFor}),
 * and every acquisition carries a fencing token, one higher than the name's previous one, which the
 * job reads through {@link #fencingToken()}.
 *
 * <p>ShedLock compares wall-clock instants ({@link ClockProvider}); the lease keeps time on {@code
 * CLOCK_MONOTONIC}: the instants of a configuration are turned into durations from now, so a wall
 * clock step while a lock is held changes nothing. A {@code lockAtMostFor} longer than a lease
 * lasts ({@link OwnerLease#MAX_AT_MOST}, 24 days; ShedLock users write {@code P30D}) is taken for
 * the longest a lease lasts and renewed from one daemon thread until the configured end.
 */
public final class CxcLockProvider implements ExtensibleLockProvider {

    /**
     * The acquisitions each thread made and that are still held, innermost last. Another thread may
     * end one (ShedLock's {@code KeepAliveLockProvider} extends from its scheduler thread; a lock
     * may be unlocked on another thread than its own), so each acquisition remembers its thread's
     * deque and leaves it itself: a concurrent deque, written by its thread and by whoever ends
     * one.
     */
    private static final ThreadLocal<Deque<Acquisition>> HELD =
            ThreadLocal.withInitial(ConcurrentLinkedDeque::new);

    private final LeaseBackend leases;
    private final Duration longestLease;

    /** A provider acquiring for this process in {@code leases} (which the caller closes). */
    public CxcLockProvider(OwnerLease leases) {
        this(LeaseBackend.local(leases));
    }

    /**
     * A provider acquiring for this process in {@code leases}: host-local, or across hosts with
     * cxc-zookeeper's {@code GlobalLeases} (the caller closes them).
     */
    public CxcLockProvider(LeaseBackend leases) {
        this(leases, OwnerLease.MAX_AT_MOST);
    }

    /** With leases of at most {@code longestLease}, renewed beyond: lets a test stretch quickly. */
    CxcLockProvider(OwnerLease leases, Duration longestLease) {
        this(LeaseBackend.local(leases), longestLease);
    }

    CxcLockProvider(LeaseBackend leases, Duration longestLease) {
        this.leases = leases;
        this.longestLease = longestLease;
    }

    /** The host-local lease table the locks live in (under ZooKeeper's, across hosts). */
    public OwnerLease leases() {
        return leases.local();
    }

    /** The leases the locks are taken in: host-local, or across hosts. */
    public LeaseBackend backend() {
        return leases;
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Duration atMost = fromNow(configuration.getLockAtMostUntil());
        Optional<Held> lease =
                leases.tryAcquire(configuration.getName(), shortest(atMost, longestLease));
        return lease.map(
                held ->
                        new CxcLock(
                                configuration,
                                Acquisition.onThisThread(held),
                                held.acquiredAtNanos(),
                                atMost));
    }

    /**
     * The fencing token of the innermost lock this thread holds through a {@link CxcLockProvider}:
     * pass it to the store the job writes, which refuses tokens lower than one it has seen (a
     * paused ex-holder's). Rises by one per acquisition of a name.
     *
     * @throws IllegalStateException if this thread holds no such lock
     */
    public static long fencingToken() {
        return currentFencingToken()
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "this thread holds no lock of a CxcLockProvider: call"
                                                + " fencingToken() inside a @SchedulerLock method"
                                                + " (or a LockingTaskExecutor task)"));
    }

    /** {@link #fencingToken()}, or empty outside a lock. */
    public static OptionalLong currentFencingToken() {
        Acquisition innermost = HELD.get().peekLast();
        return innermost == null ? OptionalLong.empty() : OptionalLong.of(innermost.lease.token());
    }

    private static Duration shortest(Duration one, Duration other) {
        return one.compareTo(other) <= 0 ? one : other;
    }

    private static Duration fromNow(Instant until) {
        Duration left = Duration.between(ClockProvider.now(), until);
        // Already passed (a slow caller): the shortest lease, not a refusal.
        return left.isNegative() || left.isZero() ? Duration.ofMillis(1) : left;
    }

    /**
     * A lease as its acquiring thread holds it: one entry of that thread's {@link #HELD}, shared by
     * the lock and its extensions (an extension keeps the lease and its token, and its place among
     * the thread's nested locks), left by whichever thread ends it.
     */
    private static final class Acquisition {
        private final Held lease;
        private final Deque<Acquisition> held;

        private Acquisition(Held lease, Deque<Acquisition> held) {
            this.lease = lease;
            this.held = held;
        }

        static Acquisition onThisThread(Held lease) {
            Acquisition acquisition = new Acquisition(lease, HELD.get());
            acquisition.held.addLast(acquisition);
            return acquisition;
        }

        void end() {
            held.remove(this);
        }
    }

    /** One acquisition: ShedLock's validity checks (unlock or extend once) come with the base. */
    private final class CxcLock extends AbstractSimpleLock {
        private final Acquisition acquisition;
        private final Held lease;

        /** When {@code lockAtLeastFor} starts: the acquisition, or the extension. */
        private final long sinceNanos;

        /** Renewals of a {@code lockAtMostFor} longer than a lease lasts; null if none needed. */
        private final @Nullable Future<?> stretch;

        /**
         * @param atMost the configured {@code lockAtMostFor}, from {@code sinceNanos}
         */
        CxcLock(
                LockConfiguration configuration,
                Acquisition acquisition,
                long sinceNanos,
                Duration atMost) {
            super(configuration);
            this.acquisition = acquisition;
            this.lease = acquisition.lease;
            this.sinceNanos = sinceNanos;
            this.stretch =
                    LeaseStretch.needed(atMost, longestLease)
                            ? LeaseStretch.until(
                                    leases, lease, sinceNanos + atMost.toNanos(), longestLease)
                            : null;
        }

        private void stopStretching() {
            if (stretch != null) {
                stretch.cancel(false);
            }
        }

        /**
         * Keeps the name until {@code lockAtLeastFor} after the acquisition, on the monotonic
         * clock: the wall clock ShedLock reads may be coarser than the instant the configuration
         * was made at, which would hold a zero {@code lockAtLeastFor} for up to a millisecond.
         */
        @Override
        protected void doUnlock() {
            stopStretching();
            acquisition.end();
            Duration atLeast = lockConfiguration.getLockAtLeastFor();
            if (atLeast.isZero() || atLeast.isNegative()) {
                leases.release(lease);
            } else {
                leases.releaseNoEarlierThan(lease, sinceNanos + atLeast.toNanos());
            }
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
            stopStretching();
            Duration atMost = fromNow(newConfiguration.getLockAtMostUntil());
            long since = System.nanoTime();
            if (!leases.extend(lease, shortest(atMost, longestLease))) {
                // ShedLock invalidates a lock whose extension failed: it can no longer be unlocked.
                acquisition.end();
                return Optional.empty();
            }
            return Optional.of(new CxcLock(newConfiguration, acquisition, since, atMost));
        }
    }
}
