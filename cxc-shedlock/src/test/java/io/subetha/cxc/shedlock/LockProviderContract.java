package io.subetha.cxc.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ShedLock's provider contract, case for case as its {@code shedlock-test-support} module's
 * integration tests state it (that module is not published), with awaits instead of sleeps: for
 * {@link CxcLockProvider} on any {@link LeaseBackend} (host-local here, ZooKeeper's in
 * cxc-zookeeper). Whether a name is locked is read from the backend's host-local table.
 */
public abstract class LockProviderContract {

    protected static final String NAME = "name";
    private static final Duration LOCK_AT_LEAST_FOR = Duration.ofSeconds(2);

    @TempDir protected Path dir;
    protected LeaseBackend backend;
    protected OwnerLease leases;
    protected CxcLockProvider provider;

    /** The backend under test, over a lease table in {@code dir}. */
    protected abstract LeaseBackend openBackend(Path dir);

    /** Closes what {@link #openBackend} opened. */
    protected abstract void closeBackend();

    /** Each fuzz thread's tries: fewer where an acquisition costs a network round trip. */
    protected int fuzzIterations() {
        return 2_000;
    }

    @BeforeEach
    void open() {
        backend = openBackend(dir);
        leases = backend.local();
        provider = new CxcLockProvider(backend);
    }

    @AfterEach
    void close() {
        assertThat(CxcLockProvider.currentFencingToken()).as("a lock left held").isEmpty();
        closeBackend();
    }

    protected static LockConfiguration config(String name) {
        return config(name, Duration.ofMinutes(5), Duration.ZERO);
    }

    protected static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
    }

    protected void assertLocked(String name) {
        assertThat(leases.holder(name)).as("%s locked", name).isPresent();
    }

    protected void assertUnlocked(String name) {
        assertThat(leases.holder(name)).as("%s unlocked", name).isEmpty();
    }

    // ------------------------------------------------------ AbstractLockProviderIntegrationTest

    @Test
    public void shouldCreateLock() {
        SimpleLock lock = provider.lock(config(NAME)).orElseThrow();
        assertLocked(NAME);
        lock.unlock();
        assertUnlocked(NAME);
    }

    @Test
    public void shouldNotReturnSecondLockFromAnyThreadTheHoldersOwnIncluded() throws Exception {
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
    public void shouldCreateTwoIndependentLocks() {
        SimpleLock one = provider.lock(config(NAME)).orElseThrow();
        SimpleLock two = provider.lock(config("name2")).orElseThrow();
        one.unlock();
        two.unlock();
    }

    @Test
    public void shouldLockTwiceInARow() {
        provider.lock(config(NAME)).orElseThrow().unlock();
        provider.lock(config(NAME)).orElseThrow().unlock();
    }

    @Test
    public void shouldTimeoutAfterLockAtMostFor() {
        SimpleLock stuck =
                provider.lock(config(NAME, Duration.ofMillis(50), Duration.ZERO)).orElseThrow();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertUnlocked(NAME));
        provider.lock(config(NAME, Duration.ofMillis(50), Duration.ZERO)).orElseThrow().unlock();
        stuck.unlock(); // late: frees nothing of its successor's
        assertUnlocked(NAME);
    }

    @Test
    public void shouldBeAbleToLockRightAfterUnlock() {
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
    public void fuzzTestShouldPass() throws Exception {
        int threads = 8;
        int iterations = fuzzIterations();
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
    public void shouldLockAtLeastFor() {
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
    public void shouldBeAbleToExtendLock() {
        SimpleLock lock =
                provider.lock(config(NAME, Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        long deadline = leases.holder(NAME).orElseThrow().expiresAtNanos();
        assertThat(deadline - System.nanoTime()).isGreaterThan(Duration.ofSeconds(20).toNanos());
        extended.unlock();
        assertUnlocked(NAME);
    }

    @Test
    public void shouldNotBeAbleToExtendUnlockedLock() {
        SimpleLock lock = provider.lock(config(NAME)).orElseThrow();
        lock.unlock();
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    public void shouldNotBeAbleToExtendExpiredLock() {
        SimpleLock lock =
                provider.lock(config(NAME, Duration.ofMillis(1), Duration.ZERO)).orElseThrow();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertUnlocked(NAME));
        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertUnlocked(NAME);
    }

    @Test
    public void shouldBeAbleToExtendAtLeast() {
        SimpleLock lock = provider.lock(config(NAME, Duration.ofSeconds(10), Duration.ZERO)).get();
        SimpleLock extended = lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)).get();
        extended.unlock();
        assertLocked(NAME);
        assertThat(leases.holder(NAME).orElseThrow().lingering()).isTrue();
    }

    @Test
    public void lockCanNotBeExtendedTwiceNorUnlockedAfterExtending() {
        SimpleLock lock = provider.lock(config(NAME, Duration.ofSeconds(10), Duration.ZERO)).get();
        SimpleLock extended = lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)).get();
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        extended.unlock();
    }
}
