package io.subetha.cxc.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.lease.OwnerLease;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ShedLock's provider contract, case for case as its {@code shedlock-test-support} module's
 * integration tests state it (that module is not published), with awaits instead of sleeps; then
 * what a database provider cannot do.
 */
class CxcLockProviderTest {

    private static final String NAME = "name";
    private static final Duration LOCK_AT_LEAST_FOR = Duration.ofSeconds(2);

    @TempDir Path dir;
    private OwnerLease leases;
    private CxcLockProvider provider;

    @BeforeEach
    void open() {
        leases = OwnerLease.TYPE.create(dir.resolve("shedlock.cxc"), new OwnerLease.Settings(64));
        provider = new CxcLockProvider(leases);
    }

    @AfterEach
    void close() {
        assertThat(CxcLockProvider.currentFencingToken()).as("a lock left held").isEmpty();
        leases.close();
    }

    private static LockConfiguration config(String name) {
        return config(name, Duration.ofMinutes(5), Duration.ZERO);
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
    }

    private void assertLocked(String name) {
        assertThat(leases.holder(name)).as("%s locked", name).isPresent();
    }

    private void assertUnlocked(String name) {
        assertThat(leases.holder(name)).as("%s unlocked", name).isEmpty();
    }

    // ------------------------------------------------------ AbstractLockProviderIntegrationTest

    @Test
    void shouldCreateLock() {
        SimpleLock lock = provider.lock(config(NAME)).orElseThrow();
        assertLocked(NAME);
        lock.unlock();
        assertUnlocked(NAME);
    }

    @Test
    void shouldNotReturnSecondLockFromAnyThreadTheHoldersOwnIncluded() throws Exception {
        SimpleLock lock = provider.lock(config(NAME)).orElseThrow();
        assertThat(provider.lock(config(NAME))).isEmpty();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            assertThat(other.submit(() -> provider.lock(config(NAME))).get()).isEmpty();
        } finally {
            other.shutdownNow();
        }
        lock.unlock();
    }

    @Test
    void shouldCreateTwoIndependentLocks() {
        SimpleLock one = provider.lock(config(NAME)).orElseThrow();
        SimpleLock two = provider.lock(config("name2")).orElseThrow();
        one.unlock();
        two.unlock();
    }

    @Test
    void shouldLockTwiceInARow() {
        provider.lock(config(NAME)).orElseThrow().unlock();
        provider.lock(config(NAME)).orElseThrow().unlock();
    }

    @Test
    void shouldTimeoutAfterLockAtMostFor() {
        SimpleLock stuck =
                provider.lock(config(NAME, Duration.ofMillis(50), Duration.ZERO)).orElseThrow();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertUnlocked(NAME));
        provider.lock(config(NAME, Duration.ofMillis(50), Duration.ZERO)).orElseThrow().unlock();
        stuck.unlock(); // late: frees nothing of its successor's
        assertUnlocked(NAME);
    }

    @Test
    void shouldBeAbleToLockRightAfterUnlock() {
        for (int i = 0; i < 10; i++) {
            Optional<SimpleLock> lock = provider.lock(config(NAME));
            assertThat(provider.lock(config(NAME))).isEmpty();
            lock.orElseThrow().unlock();
        }
    }

    /**
     * As ShedLock's FuzzTester: threads contend for three names; each holder does a plain
     * read-then-write on its name's counter, which loses updates if two ever hold a name at once.
     */
    @Test
    void fuzzTestShouldPass() throws Exception {
        int threads = 8;
        int iterations = 2_000;
        long[] counters = new long[3];
        AtomicLong[] acquired = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(
                        pool.submit(
                                () -> {
                                    for (int i = 0; i < iterations; i++) {
                                        int name = i % 3;
                                        Optional<SimpleLock> lock =
                                                provider.lock(config("fuzz-" + name));
                                        if (lock.isPresent()) {
                                            long read = counters[name];
                                            Thread.onSpinWait();
                                            counters[name] = read + 1;
                                            acquired[name].incrementAndGet();
                                            lock.get().unlock();
                                        }
                                    }
                                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        // The lease's acquire and release CASes order the plain writes between holders.
        for (int name = 0; name < 3; name++) {
            assertThat(acquired[name].get()).isPositive();
            assertThat(counters[name]).isEqualTo(acquired[name].get());
        }
    }

    @Test
    void shouldLockAtLeastFor() {
        long start = System.nanoTime();
        provider.lock(config(NAME, LOCK_AT_LEAST_FOR.multipliedBy(2), LOCK_AT_LEAST_FOR))
                .orElseThrow()
                .unlock();
        assertThat(provider.lock(config(NAME))).as("the grace period has not passed").isEmpty();
        SimpleLock again =
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> provider.lock(config(NAME)), Optional::isPresent)
                        .orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isGreaterThanOrEqualTo(LOCK_AT_LEAST_FOR);
        again.unlock();
    }

    // ---------------------------------------------- AbstractExtensibleLockProviderIntegrationTest

    @Test
    void shouldBeAbleToExtendLock() {
        SimpleLock lock =
                provider.lock(config(NAME, Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        long deadline = leases.holder(NAME).orElseThrow().expiresAtNanos();
        assertThat(deadline - System.nanoTime()).isGreaterThan(Duration.ofSeconds(20).toNanos());
        extended.unlock();
        assertUnlocked(NAME);
    }

    @Test
    void shouldNotBeAbleToExtendUnlockedLock() {
        SimpleLock lock = provider.lock(config(NAME)).orElseThrow();
        lock.unlock();
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldNotBeAbleToExtendExpiredLock() {
        SimpleLock lock =
                provider.lock(config(NAME, Duration.ofMillis(1), Duration.ZERO)).orElseThrow();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertUnlocked(NAME));
        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertUnlocked(NAME);
    }

    @Test
    void shouldBeAbleToExtendAtLeast() {
        SimpleLock lock = provider.lock(config(NAME, Duration.ofSeconds(10), Duration.ZERO)).get();
        SimpleLock extended = lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)).get();
        extended.unlock();
        assertLocked(NAME);
        assertThat(leases.holder(NAME).orElseThrow().lingering()).isTrue();
    }

    @Test
    void lockCanNotBeExtendedTwiceNorUnlockedAfterExtending() {
        SimpleLock lock = provider.lock(config(NAME, Duration.ofSeconds(10), Duration.ZERO)).get();
        SimpleLock extended = lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)).get();
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        extended.unlock();
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
