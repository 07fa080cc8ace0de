package io.subetha.cxc.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.integration.CxcLockRegistry.CxcLock;
import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The lock of a key: a thread of this process, then this process among others. A second registry on
 * the same file plays another process (its locks are other objects, its leases the same).
 */
class CxcLockRegistryTest extends LockRegistryContract {

    private OwnerLease otherLeases;

    @Override
    protected List<LeaseBackend> openBackends(Path dir) {
        Path file = dir.resolve("locks.cxc");
        OwnerLease mine = OwnerLease.TYPE.create(file, new OwnerLease.Settings(32));
        otherLeases = OwnerLease.open(file, new OwnerLease.Settings(32));
        return List.of(LeaseBackend.local(mine), LeaseBackend.local(otherLeases));
    }

    @Override
    protected void closeBackends() {
        leases.close();
        otherLeases.close();
    }

    @Test
    void aDeadProcesssLockIsFreeAtOnce() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        leases.tryAcquire("orders", gone.pid(), Duration.ofHours(1)).orElseThrow();
        CxcLock lock = registry.obtain("orders");
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.token()).isEqualTo(2);
        lock.unlock();
    }

    private interface LockAttempt {
        void on(CxcLock lock) throws Exception;
    }

    @Test
    void tenThousandDistinctKeysLockedAndUnlockedOneAfterAnotherShareATableOf256Slots() {
        Path file = dir.resolve("groups.cxc");
        try (OwnerLease one = OwnerLease.TYPE.create(file, new OwnerLease.Settings(256));
                OwnerLease twin = OwnerLease.open(file, new OwnerLease.Settings(256))) {
            // Two registries, as two processes: each key's binding is cached in both.
            CxcLockRegistry mine = new CxcLockRegistry(one);
            CxcLockRegistry theirs = new CxcLockRegistry(twin);
            long first = lockAndUnlock(mine, "group-0");
            for (int i = 0; i < 10_000; i++) {
                CxcLockRegistry registry = i % 2 == 0 ? mine : theirs;
                lockAndUnlock(registry, "group-" + i);
                assertThat(registry.obtain("group-" + (i / 2)).tryLock()).isTrue();
                registry.obtain("group-" + (i / 2)).unlock();
            }
            assertThat(lockAndUnlock(theirs, "group-0")).isGreaterThan(first);
            assertThat(one.describe()).containsEntry("held", 0);
        }
    }

    @Test
    void threadsLockingNewKeysAtOnceOnASmallTableAllGetTheirLocks() throws Exception {
        Path file = dir.resolve("busy.cxc");
        try (OwnerLease one = OwnerLease.TYPE.create(file, new OwnerLease.Settings(16));
                OwnerLease twin = OwnerLease.open(file, new OwnerLease.Settings(16))) {
            CxcLockRegistry mine = new CxcLockRegistry(one);
            CxcLockRegistry theirs = new CxcLockRegistry(twin);
            java.util.List<Future<Integer>> workers = new java.util.ArrayList<>();
            for (int t = 0; t < 8; t++) {
                CxcLockRegistry registry = t % 2 == 0 ? mine : theirs;
                String prefix = "t" + t + "-";
                workers.add(
                        threads.submit(
                                () -> {
                                    for (int i = 0; i < 1_000; i++) {
                                        lockAndUnlock(registry, prefix + i);
                                    }
                                    return 1_000;
                                }));
            }
            for (Future<Integer> worker : workers) {
                assertThat(worker.get(120, TimeUnit.SECONDS)).isEqualTo(1_000);
            }
            assertThat(one.describe()).containsEntry("held", 0);
        }
    }

    private static long lockAndUnlock(CxcLockRegistry registry, String key) {
        CxcLock lock = registry.obtain(key);
        lock.lock();
        long token = lock.token();
        assertThat(lock.tryLock()).as("reentrant").isTrue();
        lock.unlock();
        lock.unlock();
        return token;
    }

    /**
     * A full table: every thread that tries gets the table's error, none is left waiting on a local
     * hold, and the key's lock object can be forgotten.
     */
    private void assertFullTableLeavesNoLocalHold(String how, LockAttempt attempt)
            throws Exception {
        Path file = dir.resolve(how + ".cxc");
        try (OwnerLease one = OwnerLease.TYPE.create(file, new OwnerLease.Settings(1));
                OwnerLease twin = OwnerLease.open(file, new OwnerLease.Settings(1))) {
            CxcLock held = new CxcLockRegistry(twin).obtain("held");
            assertThat(held.tryLock()).isTrue();
            CxcLockRegistry full = new CxcLockRegistry(one);
            CxcLock lock = full.obtain("orders");
            assertThatThrownBy(() -> attempt.on(lock))
                    .as(how)
                    .isInstanceOf(CxcCapacityException.class);
            assertThat(lock.isLockedInThisProcess()).as("%s left a local hold", how).isFalse();
            Future<Boolean> another = threads.submit(() -> lock.tryLock());
            assertThatThrownBy(() -> another.get(30, TimeUnit.SECONDS))
                    .as("another thread's tryLock after %s", how)
                    .hasCauseInstanceOf(CxcCapacityException.class);
            full.expireUnusedOlderThan(-1);
            assertThat(full.obtain("orders")).as("forgotten after %s", how).isNotSameAs(lock);
            held.unlock();
        }
    }

    @Test
    void aFullTableThrowsOutOfLockAndLeavesNoLocalHold() throws Exception {
        assertFullTableLeavesNoLocalHold("lock", CxcLock::lock);
    }

    @Test
    void aFullTableThrowsOutOfTryLockAndLeavesNoLocalHold() throws Exception {
        assertFullTableLeavesNoLocalHold("tryLock", CxcLock::tryLock);
    }

    @Test
    void aFullTableThrowsOutOfATimedTryLockAndLeavesNoLocalHold() throws Exception {
        assertFullTableLeavesNoLocalHold("timedTryLock", lock -> lock.tryLock(1, TimeUnit.SECONDS));
    }

    @Test
    void aFullTableThrowsOutOfLockInterruptiblyAndLeavesNoLocalHold() throws Exception {
        assertFullTableLeavesNoLocalHold("lockInterruptibly", CxcLock::lockInterruptibly);
    }

    @Test
    void beyondItsCacheCapacityTheRegistryForgetsTheEldestUnlockedLocks() {
        registry.setCacheCapacity(2);
        CxcLock held = registry.obtain("held");
        held.lock();
        CxcLock eldest = registry.obtain("eldest");
        CxcLock recent = registry.obtain("recent");
        assertThat(registry.cachedLocks()).isEqualTo(2);
        assertThat(registry.obtain("held")).as("a held lock is kept").isSameAs(held);
        assertThat(registry.obtain("recent")).isSameAs(recent);
        assertThat(registry.obtain("eldest")).isNotSameAs(eldest);
        held.unlock();
        assertThatThrownBy(() -> registry.setCacheCapacity(0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
