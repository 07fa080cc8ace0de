package io.subetha.cxc.integration;

import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.LeaseBackend.Held;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.lease.OwnerLeaseDescriptor;
import java.time.Duration;
import java.time.Instant;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * A Spring Integration {@code LockRegistry} over an {@link OwnerLease} file: {@link #obtain}
 * returns a {@link java.util.concurrent.locks.Lock} that holds across the processes of one host.
 *
 * <p>Each key's lock is one object per registry: a {@link ReentrantLock} decides which thread of
 * this process holds it (reentrant; {@code unlock} by another thread is an {@link
 * IllegalMonitorStateException}), and the outermost hold acquires the key's lease, which decides
 * which process does. The lease lasts the lock's time to live ({@link #DEFAULT_TTL} unless given:
 * in effect, until {@code unlock}), and is free at once when the holding process dies, so a crashed
 * holder never blocks the others. A reentrant acquisition renews the lease, as {@code
 * LockRegistryLeaderInitiator}'s periodic {@code tryLock} then does. An {@code unlock} that finds
 * its lease expired and taken over throws {@link ConcurrentModificationException}, as Spring
 * Integration's JDBC registry does: the data the lock guarded may have been changed meanwhile.
 *
 * <p>The registry keeps at most {@link #setCacheCapacity cacheCapacity} lock objects, forgetting
 * the least recently obtained unlocked ones beyond it (a forgotten key's next {@link #obtain} makes
 * a new object; a held lock is never forgotten, and the lease keeps other objects of its key out
 * anyway). With a {@link #setRenewalTaskScheduler renewal scheduler}, a held lock's lease is
 * renewed to its time to live every third of it until unlock, as Spring Integration's JDBC registry
 * does: a lock then lasts as long as its holder's process.
 *
 * <p>A waiter sleeps on the lease table's doorbell, which every release in any process rings, so a
 * released lock is taken within a socket's hand-over; a holder that dies or lets its lease expire
 * rings nothing, so each sleep lasts {@link #MAX_POLL} at most, and a dead holder's lock is taken
 * within one of them. Each look at a lock held by a live process reads its {@code /proc} entry (~10
 * µs).
 */
public final class CxcLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

    /** A lock's time to live unless given: as long as a lease lasts, so in effect until unlock. */
    public static final Duration DEFAULT_TTL = OwnerLease.MAX_AT_MOST;

    /** The longest sleep of a waiting acquirer between two looks, unless a release rings. */
    public static final Duration MAX_POLL = Duration.ofMillis(5);

    private final LeaseBackend leases;
    private final Duration defaultTtl;

    /** The lock objects, least recently obtained first; guarded by itself. */
    private final Map<String, CxcLock> locks = new LinkedHashMap<>(16, 0.75f, true);

    private int cacheCapacity = DEFAULT_CACHE_CAPACITY;
    private volatile @Nullable TaskScheduler renewals;

    /** The most lock objects kept unless set: Spring Integration's JDBC registry's default. */
    public static final int DEFAULT_CACHE_CAPACITY = 100_000;

    /**
     * A registry in {@code leases} (which the caller closes), locks lasting {@link #DEFAULT_TTL}.
     */
    public CxcLockRegistry(OwnerLease leases) {
        this(leases, DEFAULT_TTL);
    }

    /**
     * @param defaultTtl how long a lock holds unless unlocked or renewed, up to {@link
     *     OwnerLease#MAX_AT_MOST}
     */
    public CxcLockRegistry(OwnerLease leases, Duration defaultTtl) {
        this(LeaseBackend.local(leases), defaultTtl);
    }

    /**
     * A registry in {@code leases}: host-local, or across hosts with cxc-zookeeper's {@code
     * GlobalLeases} (the caller closes them).
     *
     * @param defaultTtl how long a lock holds unless unlocked or renewed, up to {@link
     *     OwnerLease#MAX_AT_MOST}
     */
    public CxcLockRegistry(LeaseBackend leases, Duration defaultTtl) {
        requireTtl(defaultTtl);
        this.leases = leases;
        this.defaultTtl = defaultTtl;
    }

    /** The host-local lease table the locks live in (under ZooKeeper's, across hosts). */
    public OwnerLease leases() {
        return leases.local();
    }

    /** The leases the locks are taken in: host-local, or across hosts. */
    public LeaseBackend backend() {
        return leases;
    }

    /**
     * The lock of {@code key}, the same object for every call with an equal key.
     *
     * @param key a non-empty String; one longer than {@value OwnerLeaseDescriptor#MAX_NAME_BYTES}
     *     UTF-8 bytes (an absolute path, say) is leased under its SHA-256, as Spring Integration's
     *     JDBC registry turns keys into name-based UUIDs
     */
    @Override
    public CxcLock obtain(Object key) {
        if (!(key instanceof String name)) {
            throw new IllegalArgumentException(
                    "lock keys are Strings (a lease name), got "
                            + (key == null ? "null" : key.getClass().getName()));
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a lock key is a non-empty String");
        }
        synchronized (locks) {
            CxcLock lock = locks.computeIfAbsent(name, CxcLock::new);
            lock.touch();
            forgetBeyondCapacity();
            return lock;
        }
    }

    /**
     * How many lock objects to keep: beyond it, the least recently obtained unlocked ones are
     * forgotten. Default {@value #DEFAULT_CACHE_CAPACITY}.
     */
    public void setCacheCapacity(int cacheCapacity) {
        if (cacheCapacity < 1) {
            throw new IllegalArgumentException("cacheCapacity must be positive: " + cacheCapacity);
        }
        synchronized (locks) {
            this.cacheCapacity = cacheCapacity;
            forgetBeyondCapacity();
        }
    }

    /** How many lock objects are kept at most ({@link #setCacheCapacity}). */
    public int cacheCapacity() {
        synchronized (locks) {
            return cacheCapacity;
        }
    }

    /** The lock objects kept now. */
    int cachedLocks() {
        synchronized (locks) {
            return locks.size();
        }
    }

    private void forgetBeyondCapacity() {
        int excess = locks.size() - cacheCapacity;
        for (Iterator<CxcLock> eldest = locks.values().iterator();
                excess > 0 && eldest.hasNext(); ) {
            if (!eldest.next().local.isLocked()) {
                eldest.remove();
                excess--;
            }
        }
    }

    /**
     * Renews every lock's lease on {@code scheduler} while it is held: to its time to live, every
     * third of it, until unlock (or until the lease is found lost).
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler scheduler) {
        this.renewals = scheduler;
    }

    @Override
    public void renewLock(Object key) {
        renewLock(key, defaultTtl);
    }

    /**
     * Extends the lease of a lock this thread holds to {@code ttl} from now.
     *
     * @throws IllegalMonitorStateException if this thread does not hold it
     * @throws IllegalStateException if its lease expired and was taken over
     */
    @Override
    public void renewLock(Object key, Duration ttl) {
        CxcLock lock;
        synchronized (locks) {
            lock = locks.get(String.valueOf(key));
        }
        if (lock == null || !lock.local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException(
                    "the current thread does not hold the lock " + key + " of " + leases);
        }
        if (!lock.renew(ttl)) {
            throw new IllegalStateException(
                    "cannot renew the lock "
                            + key
                            + ": its lease expired and another process may hold it");
        }
    }

    /** Forgets the lock objects of keys unlocked and not obtained for {@code age} ms. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        synchronized (locks) {
            locks.values()
                    .removeIf(
                            lock ->
                                    !lock.local.isLocked()
                                            && now - lock.lastUsed
                                                    > TimeUnit.MILLISECONDS.toNanos(age));
        }
    }

    private static Duration requireTtl(Duration ttl) {
        if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(OwnerLease.MAX_AT_MOST) > 0) {
            throw new IllegalArgumentException(
                    "ttl must be in (0, " + OwnerLease.MAX_AT_MOST + "], got " + ttl);
        }
        return ttl;
    }

    /** Takes or renews a key's lease once its local hold is taken. */
    @FunctionalInterface
    private interface LeaseStep {
        boolean take() throws InterruptedException;
    }

    /** A {@link LeaseStep} that does not wait. */
    @FunctionalInterface
    private interface UninterruptibleLeaseStep {
        boolean take();
    }

    /** The lock of one key: a thread of this process, then this process among the others. */
    public final class CxcLock implements DistributedLock {
        private final String key;
        private final ReentrantLock local = new ReentrantLock();

        /** The lease of the outermost hold; read and written by the holding thread only. */
        private @Nullable Held lease;

        /** The renewal of the outermost hold's lease, if scheduled; holding thread only. */
        private @Nullable ScheduledFuture<?> renewal;

        private volatile long lastUsed = System.nanoTime();

        private CxcLock(String key) {
            this.key = key;
        }

        /** Whether a thread of this process holds the lock, or holds it and awaits the lease. */
        boolean isLockedInThisProcess() {
            return local.isLocked();
        }

        private void touch() {
            lastUsed = System.nanoTime();
        }

        /**
         * The fencing token of this lock's current acquisition, one higher than the key's previous
         * one: hand it to the store the holder writes.
         *
         * @throws IllegalMonitorStateException if this thread does not hold the lock
         */
        public long token() {
            Held held = lease;
            if (!local.isHeldByCurrentThread() || held == null) {
                throw new IllegalMonitorStateException(
                        "the current thread does not hold the lock " + key);
            }
            return held.token();
        }

        @Override
        public void lock() {
            lock(defaultTtl);
        }

        @Override
        public void lock(Duration ttl) {
            requireTtl(ttl);
            local.lock();
            keepLocalHoldIf(
                    () -> {
                        if (reentered(ttl)) {
                            return true;
                        }
                        boolean interrupted = false;
                        boolean acquired = acquire(ttl);
                        while (!acquired) {
                            // woken by a release; a holder's death or expiry by MAX_POLL
                            acquired = leases.awaitRelease(key, () -> acquire(ttl), MAX_POLL);
                            interrupted |= Thread.interrupted();
                        }
                        if (interrupted) {
                            Thread.currentThread().interrupt();
                        }
                        return true;
                    });
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            local.lockInterruptibly();
            keepLocalHoldIfInterruptibly(
                    () -> reentered(defaultTtl) || await(Long.MAX_VALUE, defaultTtl));
        }

        @Override
        public boolean tryLock() {
            if (!local.tryLock()) {
                return false;
            }
            return keepLocalHoldIf(() -> reentered(defaultTtl) || acquire(defaultTtl));
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return tryLock(Duration.ofNanos(unit.toNanos(time)), defaultTtl);
        }

        @Override
        public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
            requireTtl(ttl);
            long deadline = System.nanoTime() + Math.max(0, waitTime.toNanos());
            if (!local.tryLock(Math.max(0, waitTime.toNanos()), TimeUnit.NANOSECONDS)) {
                return false;
            }
            return keepLocalHoldIfInterruptibly(() -> reentered(ttl) || await(deadline, ttl));
        }

        /**
         * Runs the lease step of a hold just taken on {@code local}, and gives that hold back
         * unless the step answers true: when the lease is refused, when the wait is interrupted,
         * and when the lease table throws (full, or a binder that does not progress), so other
         * threads meet the same answer instead of a lock held by nobody.
         */
        private boolean keepLocalHoldIfInterruptibly(LeaseStep step) throws InterruptedException {
            boolean held = false;
            try {
                held = step.take();
                return held;
            } finally {
                if (!held) {
                    local.unlock();
                }
            }
        }

        /** {@link #keepLocalHoldIfInterruptibly} for a step that cannot be interrupted. */
        private boolean keepLocalHoldIf(UninterruptibleLeaseStep step) {
            boolean held = false;
            try {
                held = step.take();
                return held;
            } finally {
                if (!held) {
                    local.unlock();
                }
            }
        }

        /**
         * Waits for the lease until acquired or {@code deadline} (nanoTime; MAX_VALUE: none): on
         * the lease table's doorbell, which every release rings, through a waiter it lends; a
         * holder that dies or lets its lease expire rings nothing, so each sleep lasts {@link
         * #MAX_POLL} at most.
         */
        private boolean await(long deadline, Duration ttl) throws InterruptedException {
            BooleanSupplier look = () -> !Thread.currentThread().isInterrupted() && acquire(ttl);
            while (true) {
                // Interruption first: an interrupted waiter never takes the lock on its way.
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted waiting for the lock " + key);
                }
                if (acquire(ttl)) {
                    return true;
                }
                long left = deadline - System.nanoTime();
                if (deadline != Long.MAX_VALUE && left <= 0) {
                    return false;
                }
                long sleep =
                        deadline == Long.MAX_VALUE
                                ? MAX_POLL.toNanos()
                                : Math.min(left, MAX_POLL.toNanos());
                if (leases.awaitRelease(key, look, Duration.ofNanos(sleep))) {
                    return true;
                }
            }
        }

        /**
         * After taking {@code local}: true for a nested hold whose lease still holds (renewed to
         * {@code ttl}); a nested hold whose lease was lost acquires a new one, as a first hold.
         */
        private boolean reentered(Duration ttl) {
            if (local.getHoldCount() == 1) {
                return false;
            }
            return renew(ttl);
        }

        private boolean acquire(Duration ttl) {
            Optional<Held> acquired = leases.tryAcquire(key, ttl);
            if (acquired.isEmpty()) {
                return false;
            }
            stopRenewing(); // a nested hold replacing a lost lease
            lease = acquired.get();
            TaskScheduler scheduler = renewals;
            if (scheduler != null) {
                renewal = renewEvery(scheduler, acquired.get(), ttl);
            }
            return true;
        }

        private ScheduledFuture<?> renewEvery(TaskScheduler scheduler, Held held, Duration ttl) {
            Duration period = ttl.dividedBy(3).isZero() ? Duration.ofMillis(1) : ttl.dividedBy(3);
            AtomicReference<@Nullable ScheduledFuture<?>> self = new AtomicReference<>();
            Runnable renew =
                    () -> {
                        ScheduledFuture<?> scheduled = self.get();
                        if (!leases.extend(held, ttl) && scheduled != null) {
                            scheduled.cancel(false); // lost or released: nothing left to renew
                        }
                    };
            ScheduledFuture<?> scheduled =
                    scheduler.scheduleAtFixedRate(renew, Instant.now().plus(period), period);
            self.set(scheduled);
            return scheduled;
        }

        private void stopRenewing() {
            ScheduledFuture<?> scheduled = renewal;
            renewal = null;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }

        private boolean renew(Duration ttl) {
            Held held = lease;
            return held != null && leases.extend(held, ttl);
        }

        /**
         * @throws IllegalMonitorStateException if this thread does not hold the lock
         * @throws ConcurrentModificationException if the lease had expired and was taken over
         */
        @Override
        public void unlock() {
            if (!local.isHeldByCurrentThread()) {
                throw new IllegalMonitorStateException(
                        "the current thread does not hold the lock " + key);
            }
            if (local.getHoldCount() > 1) {
                local.unlock();
                return;
            }
            Held held = lease;
            lease = null;
            stopRenewing();
            try {
                if (held != null && !leases.release(held)) {
                    throw new ConcurrentModificationException(
                            "the lease of lock "
                                    + key
                                    + " expired before unlock and may have been taken by another"
                                    + " process: the data it guards may have been changed");
                }
            } finally {
                touch();
                local.unlock();
            }
        }

        /** Conditions need a monitor that spans processes; there is none. */
        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException(
                    "a cross-process lock has no conditions: use a cxc primitive to signal");
        }

        @Override
        public String toString() {
            return "CxcLock[" + key + "]";
        }
    }
}
