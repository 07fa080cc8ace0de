package io.subetha.cxc.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.integration.CxcLockRegistry.CxcLock;
import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
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
 * Spring Integration's lock-registry contract, case for case as its registries' tests state it, for
 * {@link CxcLockRegistry} on any {@link LeaseBackend}: two registries, each on a backend of its
 * own, play two processes (two hosts for cxc-zookeeper's backend). Lease state is read from the
 * first backend's host-local table.
 */
public abstract class LockRegistryContract {

    @TempDir protected Path dir;
    protected OwnerLease leases;
    protected CxcLockRegistry registry;
    protected CxcLockRegistry other;
    protected final ExecutorService threads = Executors.newCachedThreadPool();

    /** Two backends on one set of locks, as two processes (or hosts) see them. */
    protected abstract List<LeaseBackend> openBackends(Path dir);

    /** Closes what {@link #openBackends} opened. */
    protected abstract void closeBackends();

    @BeforeEach
    void open() {
        List<LeaseBackend> backends = openBackends(dir);
        leases = backends.get(0).local();
        registry = new CxcLockRegistry(backends.get(0), CxcLockRegistry.DEFAULT_TTL);
        other = new CxcLockRegistry(backends.get(1), CxcLockRegistry.DEFAULT_TTL);
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        closeBackends();
    }

    /** Whether a thread of this registry holds or waits for {@code lock}. */
    protected static boolean lockedInThisProcess(CxcLock lock) {
        return lock.isLockedInThisProcess();
    }

    protected <T> T onAnotherThread(java.util.concurrent.Callable<T> call) throws Exception {
        return threads.submit(call).get(30, TimeUnit.SECONDS);
    }

    @Test
    public void oneLockObjectPerKeyReentrantWithinAThreadRefusedToOtherThreadsAndProcesses()
            throws Exception {
        CxcLock lock = registry.obtain("orders");
        assertThat(registry.obtain("orders")).isSameAs(lock);
        lock.lock();
        long first = lock.token();
        assertThat(lock.tryLock()).as("reentrant").isTrue();
        assertThat(onAnotherThread(() -> lock.tryLock()).booleanValue()).isFalse();
        assertThat(other.obtain("orders").tryLock()).isFalse();
        lock.unlock();
        assertThat(other.obtain("orders").tryLock()).as("still held once").isFalse();
        lock.unlock();
        CxcLock theirs = other.obtain("orders");
        assertThat(theirs.tryLock()).isTrue();
        assertThat(theirs.token()).as("rises").isGreaterThan(first);
        theirs.unlock();
    }

    @Test
    public void onlyTheHoldingThreadMayUnlock() throws Exception {
        CxcLock lock = registry.obtain("orders");
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        lock.lock();
        Future<?> foreign = threads.submit(lock::unlock);
        assertThatThrownBy(foreign::get).hasCauseInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        lock.unlock();
    }

    @Test
    public void aTimedTryLockWaitsForTheOtherProcessToUnlock() throws Exception {
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
    public void lockInterruptiblyGivesUpOnInterrupt() throws Exception {
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
    public void anExpiredLockIsTakenAndItsUnlockSaysSo() throws Exception {
        CxcLock lock = registry.obtain("orders");
        lock.lock(Duration.ofMillis(20));
        CxcLock theirs = other.obtain("orders");
        await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(theirs::tryLock);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThat(lock.tryLock()).as("the local hold was released").isFalse();
        theirs.unlock();
    }

    @Test
    public void renewingExtendsTheLeaseOfAHeldLockOnly() {
        CxcLock lock = registry.obtain("orders");
        assertThatThrownBy(() -> registry.renewLock("orders"))
                .isInstanceOf(IllegalMonitorStateException.class);
        lock.lock(Duration.ofSeconds(5));
        registry.renewLock("orders", Duration.ofHours(1));
        assertThat(leases.holder("orders").orElseThrow().expiresAtNanos() - System.nanoTime())
                .isGreaterThan(Duration.ofMinutes(59).toNanos());
        lock.unlock();
    }

    @Test
    public void aRenewalSchedulerKeepsAHeldLocksLeaseUntilUnlock() throws Exception {
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
    public void keysAreNonEmptyStringsOfAnyLengthAndUnusedLocksAreForgotten() throws Exception {
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
