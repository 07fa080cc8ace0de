package io.subetha.cxc.benchmarks;

import io.subetha.cxc.integration.CxcLockRegistry;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.shedlock.CxcLockProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One lock and one unlock per op over a cxc {@link OwnerLease} file, as {@link ShedLockBenchmark}
 * does on ShedLock's JDBC provider (run both in one JMH run: {@code
 * '(ShedLock|LeaseLock)Benchmark'}): the raw lease, the ShedLock provider ({@code @SchedulerLock}'s
 * path, building the {@code LockConfiguration} each time as ShedLock does per run), and the Spring
 * Integration registry's {@code Lock}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class LeaseLockBenchmark {

    private static final String LOCK_NAME = "scheduled-task";

    private ScratchDirectory directory;
    private OwnerLease leases;
    private CxcLockProvider provider;
    private Lock lock;
    private long pid;

    @Setup(Level.Trial)
    public void open() {
        directory = ScratchDirectory.create();
        leases =
                OwnerLease.TYPE.create(
                        directory.resolve("leases.cxc"), new OwnerLease.Settings(64));
        provider = new CxcLockProvider(leases);
        lock = new CxcLockRegistry(leases).obtain("registry-lock");
        pid = Pids.current();
    }

    @TearDown(Level.Trial)
    public void close() {
        leases.close();
        directory.close();
    }

    @Benchmark
    public long leaseAcquireAndRelease() {
        OwnerLease.Lease lease =
                leases.tryAcquire("raw-lease", pid, Duration.ofMinutes(1)).orElseThrow();
        leases.release(lease);
        return lease.token();
    }

    @Benchmark
    public SimpleLock shedLockProviderLockAndUnlock() {
        Optional<SimpleLock> held =
                provider.lock(
                        new LockConfiguration(
                                Instant.now(), LOCK_NAME, Duration.ofMinutes(1), Duration.ZERO));
        if (held.isEmpty()) {
            throw new IllegalStateException("nobody else holds the lock, yet it was refused");
        }
        held.get().unlock();
        return held.get();
    }

    @Benchmark
    public Lock lockRegistryLockAndUnlock() {
        if (!lock.tryLock()) {
            throw new IllegalStateException("nobody else holds the lock, yet it was refused");
        }
        lock.unlock();
        return lock;
    }
}
