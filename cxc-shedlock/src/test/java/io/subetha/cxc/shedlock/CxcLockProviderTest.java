package io.subetha.cxc.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's provider contract on the host-local leases; then what a database provider cannot do.
 */
class CxcLockProviderTest extends LockProviderContract {

    @Override
    protected LeaseBackend openBackend(Path dir) {
        return LeaseBackend.local(
                OwnerLease.TYPE.create(dir.resolve("shedlock.cxc"), new OwnerLease.Settings(64)));
    }

    @Override
    protected void closeBackend() {
        leases.close();
    }

    // --------------------------------------------------------------------- beyond a database

    @Test
    void aDeadHoldersLockIsFreeAtOnceNotAfterLockAtMostFor() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        leases.tryAcquire(NAME, gone.pid(), Duration.ofHours(1)).orElseThrow();
        provider.lock(config(NAME, Duration.ofHours(1), Duration.ZERO)).orElseThrow().unlock();
    }

    @Test
    void theJobSeesAFencingTokenThatRisesPerAcquisition() {
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            executor.executeWithLock(
                    (Runnable) () -> tokens.add(CxcLockProvider.fencingToken()), config("job"));
        }
        assertThat(tokens).containsExactly(1L, 2L, 3L);
        assertThat(CxcLockProvider.currentFencingToken()).isEmpty();
        assertThatThrownBy(CxcLockProvider::fencingToken)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@SchedulerLock");
    }

    @Test
    void moreDistinctJobNamesThanSlotsRunOneAfterAnotherAndAJobsTokensKeepRising() {
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
        List<Long> tokens = new ArrayList<>();
        Runnable job = () -> tokens.add(CxcLockProvider.fencingToken());
        for (int round = 0; round < 3; round++) {
            executor.executeWithLock(job, config("report"));
            // 64 slots: these names take every one of them, "report"'s included.
            for (int i = 0; i < 100; i++) {
                executor.executeWithLock((Runnable) () -> {}, config("job-" + round + "-" + i));
            }
        }
        assertThat(tokens).hasSize(3).isSorted().doesNotHaveDuplicates();
        assertUnlocked("report");
    }

    @Test
    void anExtendedLockKeepsItsToken() {
        SimpleLock lock = provider.lock(config("job")).orElseThrow();
        long token = CxcLockProvider.fencingToken();
        SimpleLock extended = lock.extend(Duration.ofMinutes(1), Duration.ZERO).orElseThrow();
        assertThat(CxcLockProvider.fencingToken()).isEqualTo(token);
        extended.unlock();
        assertThat(CxcLockProvider.currentFencingToken()).isEmpty();
    }

    /**
     * ShedLock's KeepAliveLockProvider extends from its scheduler thread and unlocks on the job
     * thread: the job thread's token goes with the unlock, whoever extended.
     */
    @Test
    void aLockExtendedOnAnotherThreadLeavesNoTokenBehindOnItsUnlock() throws Exception {
        SimpleLock lock = provider.lock(config("job")).orElseThrow();
        long token = CxcLockProvider.fencingToken();
        ExecutorService scheduler = Executors.newSingleThreadExecutor();
        SimpleLock extended;
        try {
            extended =
                    scheduler
                            .submit(
                                    () -> {
                                        assertThat(CxcLockProvider.currentFencingToken())
                                                .as("the scheduler thread holds nothing")
                                                .isEmpty();
                                        return lock.extend(Duration.ofMinutes(1), Duration.ZERO)
                                                .orElseThrow();
                                    })
                            .get();
        } finally {
            scheduler.shutdownNow();
        }
        assertThat(CxcLockProvider.fencingToken()).as("still the job's").isEqualTo(token);
        extended.unlock();
        assertThat(CxcLockProvider.currentFencingToken()).isEmpty();
    }

    @Test
    void aLockUnlockedOnAnotherThreadLeavesNoTokenOnTheAcquiringThread() throws Exception {
        SimpleLock lock = provider.lock(config("job")).orElseThrow();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            other.submit(lock::unlock).get();
        } finally {
            other.shutdownNow();
        }
        assertUnlocked("job");
        assertThat(CxcLockProvider.currentFencingToken()).isEmpty();
        assertThatThrownBy(CxcLockProvider::fencingToken).isInstanceOf(IllegalStateException.class);
    }

    /** An outer lock extended elsewhere stays outer: the innermost lock's token is the answer. */
    @Test
    void extendingAnOuterLockOnAnotherThreadKeepsTheInnermostToken() throws Exception {
        SimpleLock outer = provider.lock(config("outer")).orElseThrow();
        long outerToken = CxcLockProvider.fencingToken();
        provider.lock(config("inner")).orElseThrow().unlock();
        SimpleLock inner = provider.lock(config("inner")).orElseThrow();
        long innerToken = CxcLockProvider.fencingToken();
        assertThat(innerToken).isNotEqualTo(outerToken);
        ExecutorService scheduler = Executors.newSingleThreadExecutor();
        SimpleLock extendedOuter;
        try {
            extendedOuter =
                    scheduler
                            .submit(
                                    () ->
                                            outer.extend(Duration.ofMinutes(1), Duration.ZERO)
                                                    .orElseThrow())
                            .get();
        } finally {
            scheduler.shutdownNow();
        }
        assertThat(CxcLockProvider.fencingToken()).isEqualTo(innerToken);
        inner.unlock();
        assertThat(CxcLockProvider.fencingToken()).isEqualTo(outerToken);
        extendedOuter.unlock();
        assertThat(CxcLockProvider.currentFencingToken()).isEmpty();
    }

    /** A zero lockAtLeastFor frees at once, whatever the wall clock's resolution. */
    @Test
    void aPreciseInstantAndZeroLockAtLeastForRelockRightAway() {
        for (int i = 0; i < 100; i++) {
            provider.lock(
                            new LockConfiguration(
                                    Instant.now(), NAME, Duration.ofMinutes(1), Duration.ZERO))
                    .orElseThrow(() -> new AssertionError("refused right after unlock"))
                    .unlock();
        }
    }

    /** ShedLock users write {@code defaultLockAtMostFor = "P30D"}: longer than a lease lasts. */
    @Test
    void aLockAtMostForBeyondALeaseIsTakenForTheLongestLease() {
        SimpleLock lock =
                provider.lock(
                                new LockConfiguration(
                                        Instant.now(), NAME, Duration.ofDays(30), Duration.ZERO))
                        .orElseThrow();
        long left = leases.holder(NAME).orElseThrow().expiresAtNanos() - System.nanoTime();
        assertThat(left).isGreaterThan(OwnerLease.MAX_AT_MOST.minusMinutes(1).toNanos());
        lock.unlock();
        assertUnlocked(NAME);
    }

    /** A lease of at most 200 ms stands in for 24 days: renewed up to the configured end. */
    @Test
    void aLockAtMostForBeyondALeaseIsRenewedUntilItsEnd() {
        CxcLockProvider stretching = new CxcLockProvider(leases, Duration.ofMillis(200));
        long start = System.nanoTime();
        SimpleLock lock =
                stretching.lock(config(NAME, Duration.ofMillis(900), Duration.ZERO)).orElseThrow();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () ->
                                assertThat(
                                                leases.holder(NAME).orElseThrow().expiresAtNanos()
                                                        - start)
                                        .as("renewed past the first lease")
                                        .isGreaterThan(Duration.ofMillis(400).toNanos()));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertUnlocked(NAME));
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("held to lockAtMostFor")
                .isGreaterThanOrEqualTo(Duration.ofMillis(900));
        stretching.lock(config(NAME)).orElseThrow().unlock();
        lock.unlock(); // late: frees nothing of its successor's
        assertUnlocked(NAME);
    }

    @Test
    void aRenewalAfterUnlockNeverExtendsTheSuccessorsLease() {
        CxcLockProvider stretching = new CxcLockProvider(leases, Duration.ofMillis(100));
        SimpleLock lock =
                stretching.lock(config(NAME, Duration.ofMinutes(5), Duration.ZERO)).orElseThrow();
        lock.unlock();
        SimpleLock next =
                provider.lock(config(NAME, Duration.ofMillis(150), Duration.ZERO)).orElseThrow();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertUnlocked(NAME));
        next.unlock();
    }
}
