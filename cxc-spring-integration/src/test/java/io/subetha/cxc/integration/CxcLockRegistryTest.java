package io.subetha.cxc.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.integration.CxcLockRegistry.CxcLock;
import io.subetha.cxc.lease.OwnerLease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The lock of a key: a thread of this process, then this process among others. A second registry on
 * the same file plays another process (its locks are other objects, its leases the same).
 */
class CxcLockRegistryTest {

    @TempDir Path dir;
    private OwnerLease leases;
    private OwnerLease otherLeases;
    private CxcLockRegistry registry;
    private CxcLockRegistry other;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void open() {
        Path file = dir.resolve("locks.cxc");
        leases = OwnerLease.TYPE.create(file, new OwnerLease.Settings(32));
        otherLeases = OwnerLease.open(file, new OwnerLease.Settings(32));
        registry = new CxcLockRegistry(leases);
        other = new CxcLockRegistry(otherLeases);
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        leases.close();
        otherLeases.close();
    }

    private <T> T onAnotherThread(java.util.concurrent.Callable<T> call) throws Exception {
        return threads.submit(call).get(30, TimeUnit.SECONDS);
    }

    @Test
    void oneLockObjectPerKeyReentrantWithinAThreadRefusedToOtherThreadsAndProcesses()
            throws Exception {
        CxcLock lock = registry.obtain("orders");
        assertThat(registry.obtain("orders")).isSameAs(lock);
        lock.lock();
        assertThat(lock.tryLock()).as("reentrant").isTrue();
        assertThat(onAnotherThread(() -> lock.tryLock()).booleanValue()).isFalse();
        assertThat(other.obtain("orders").tryLock()).isFalse();
        lock.unlock();
        assertThat(other.obtain("orders").tryLock()).as("still held once").isFalse();
        lock.unlock();
        CxcLock theirs = other.obtain("orders");
        assertThat(theirs.tryLock()).isTrue();
        assertThat(theirs.token()).isEqualTo(2);
        theirs.unlock();
    }

    @Test
    void onlyTheHoldingThreadMayUnlock() throws Exception {
        CxcLock lock = registry.obtain("orders");
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        lock.lock();
        Future<?> foreign = threads.submit(lock::unlock);
        assertThatThrownBy(foreign::get).hasCauseInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        lock.unlock();
    }

    @Test
    void aTimedTryLockWaitsForTheOtherProcessToUnlock() throws Exception {
        CxcLock theirs = other.obtain("orders");
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> holder =
                CompletableFuture.runAsync(
                        () -> {
                            theirs.lock();
                            held.countDown();
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            theirs.unlock();
                        },
                        threads);
        held.await();
        CxcLock mine = registry.obtain("orders");
        assertThat(mine.tryLock(10, TimeUnit.MILLISECONDS)).isFalse();
        release.countDown();
        assertThat(mine.tryLock(30, TimeUnit.SECONDS)).isTrue();
        holder.get(30, TimeUnit.SECONDS);
        mine.unlock();
    }

    @Test
    void lockInterruptiblyGivesUpOnInterrupt() throws Exception {
        CxcLock theirs = other.obtain("orders");
        assertThat(theirs.tryLock()).isTrue();
        CxcLock mine = registry.obtain("orders");
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Future<?> waiting =
                threads.submit(
                        () -> {
                            try {
                                mine.lockInterruptibly();
                                outcome.complete(null);
                            } catch (InterruptedException e) {
                                outcome.complete(e);
                            }
                        });
        // The waiter holds the lock within the process while it polls the lease.
        await().atMost(Duration.ofSeconds(30)).until(mine::isLockedInThisProcess);
        waiting.cancel(true);
        assertThat(outcome.get(30, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        theirs.unlock();
        await().atMost(Duration.ofSeconds(30)).until(() -> !mine.isLockedInThisProcess());
        assertThat(onAnotherThread(() -> mine.tryLock()).booleanValue())
                .as("the waiter left no hold")
                .isTrue();
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

    @Test
    void anExpiredLockIsTakenAndItsUnlockSaysSo() throws Exception {
        CxcLock lock = registry.obtain("orders");
        lock.lock(Duration.ofMillis(20));
        CxcLock theirs = other.obtain("orders");
        await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(theirs::tryLock);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThat(lock.tryLock()).as("the local hold was released").isFalse();
        theirs.unlock();
    }

    @Test
    void renewingExtendsTheLeaseOfAHeldLockOnly() {
        CxcLock lock = registry.obtain("orders");
        assertThatThrownBy(() -> registry.renewLock("orders"))
                .isInstanceOf(IllegalMonitorStateException.class);
        lock.lock(Duration.ofSeconds(5));
        registry.renewLock("orders", Duration.ofHours(1));
        assertThat(leases.holder("orders").orElseThrow().expiresAtNanos() - System.nanoTime())
                .isGreaterThan(Duration.ofMinutes(59).toNanos());
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

    @Test
    void aRenewalSchedulerKeepsAHeldLocksLeaseUntilUnlock() throws Exception {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.initialize();
        try {
            registry.setRenewalTaskScheduler(scheduler);
            CxcLock lock = registry.obtain("orders");
            long start = System.nanoTime();
            lock.lock(Duration.ofMillis(300));
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(
                            () ->
                                    assertThat(
                                                    leases.holder("orders")
                                                                    .orElseThrow()
                                                                    .expiresAtNanos()
                                                            - start)
                                            .as("renewed past its first ttl")
                                            .isGreaterThan(Duration.ofMillis(700).toNanos()));
            assertThat(other.obtain("orders").tryLock()).isFalse();
            lock.unlock();
            assertThat(leases.holder("orders")).isEmpty();
        } finally {
            scheduler.shutdown();
        }
    }

    @Test
    void keysAreNonEmptyStringsOfAnyLengthAndUnusedLocksAreForgotten() throws Exception {
        assertThatThrownBy(() -> registry.obtain(42))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Integer");
        assertThatThrownBy(() -> registry.obtain("")).isInstanceOf(IllegalArgumentException.class);
        String path = "/var/spool/inbound/" + "segment/".repeat(20) + "order-42.json";
        CxcLock file = registry.obtain(path);
        assertThat(file.tryLock()).isTrue();
        assertThat(other.obtain(path).tryLock()).as("held by the other process").isFalse();
        assertThat(other.obtain(path.replace("42", "43")).tryLock()).isTrue();
        other.obtain(path.replace("42", "43")).unlock();
        file.unlock();
        CxcLock lock = registry.obtain("orders");
        registry.expireUnusedOlderThan(-1);
        assertThat(registry.obtain("orders")).isNotSameAs(lock);
        assertThatThrownBy(() -> new CxcLockRegistry(leases, Duration.ofDays(30)))
                .hasMessageContaining("ttl must be in (0, PT576H]");
    }
}
