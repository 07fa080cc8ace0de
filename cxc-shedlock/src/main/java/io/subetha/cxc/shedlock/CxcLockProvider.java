package io.subetha.cxc.shedlock;

import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.process.Pids;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.OptionalLong;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link ExtensibleLockProvider} over an {@link OwnerLease} file: {@code @SchedulerLock}
 * across the processes of one host with no database. Each lock name is a lease name (at most 64
 * UTF-8 bytes, as ShedLock's JDBC table's name column).
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
 * clock step while a lock is held changes nothing. {@code lockAtMostFor} may be at most {@link
 * OwnerLease#MAX_AT_MOST}.
 */
public final class CxcLockProvider implements ExtensibleLockProvider {

    private static final ThreadLocal<Deque<CxcLock>> HELD =
            ThreadLocal.withInitial(ArrayDeque::new);

    private final OwnerLease leases;
    private final long pid;

    /** A provider acquiring for this process in {@code leases} (which the caller closes). */
    public CxcLockProvider(OwnerLease leases) {
        this.leases = leases;
        this.pid = Pids.current();
    }

    /** The lease table the locks live in. */
    public OwnerLease leases() {
        return leases;
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Optional<Lease> lease =
                leases.tryAcquire(
                        configuration.getName(),
                        pid,
                        fromNow("lockAtMostFor", configuration.getLockAtMostUntil()));
        return lease.map(held -> push(new CxcLock(configuration, held, held.acquiredAtNanos())));
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
        CxcLock lock = HELD.get().peekLast();
        return lock == null ? OptionalLong.empty() : OptionalLong.of(lock.lease.token());
    }

    private static SimpleLock push(CxcLock lock) {
        HELD.get().addLast(lock);
        return lock;
    }

    private static Duration fromNow(String setting, Instant until) {
        Duration left = Duration.between(ClockProvider.now(), until);
        if (left.compareTo(OwnerLease.MAX_AT_MOST) > 0) {
            throw new IllegalArgumentException(
                    setting
                            + " "
                            + left
                            + " is longer than a cxc lease lasts ("
                            + OwnerLease.MAX_AT_MOST
                            + "); a dead holder's lock is freed at once anyway, so a shorter bound"
                            + " loses nothing");
        }
        // Already passed (a slow caller): the shortest lease, not a refusal.
        return left.isNegative() || left.isZero() ? Duration.ofMillis(1) : left;
    }

    /** One acquisition: ShedLock's validity checks (unlock or extend once) come with the base. */
    private final class CxcLock extends AbstractSimpleLock {
        private final Lease lease;

        /** When {@code lockAtLeastFor} starts: the acquisition, or the extension. */
        private final long sinceNanos;

        CxcLock(LockConfiguration configuration, Lease lease, long sinceNanos) {
            super(configuration);
            this.lease = lease;
            this.sinceNanos = sinceNanos;
        }

        /**
         * Keeps the name until {@code lockAtLeastFor} after the acquisition, on the monotonic
         * clock: the wall clock ShedLock reads may be coarser than the instant the configuration
         * was made at, which would hold a zero {@code lockAtLeastFor} for up to a millisecond.
         */
        @Override
        protected void doUnlock() {
            HELD.get().remove(this);
            Duration atLeast = lockConfiguration.getLockAtLeastFor();
            if (atLeast.isZero() || atLeast.isNegative()) {
                leases.release(lease);
            } else {
                leases.releaseNoEarlierThan(lease, sinceNanos + atLeast.toNanos());
            }
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
            if (!leases.extend(
                    lease, fromNow("lockAtMostFor", newConfiguration.getLockAtMostUntil()))) {
                // ShedLock invalidates a lock whose extension failed: it can no longer be unlocked.
                HELD.get().remove(this);
                return Optional.empty();
            }
            CxcLock extended = new CxcLock(newConfiguration, lease, System.nanoTime());
            Deque<CxcLock> held = HELD.get();
            if (held.remove(this)) {
                held.addLast(extended);
            }
            return Optional.of(extended);
        }
    }
}
