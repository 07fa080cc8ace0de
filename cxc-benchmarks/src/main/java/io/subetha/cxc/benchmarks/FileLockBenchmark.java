package io.subetha.cxc.benchmarks;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
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
 * What a user reaches for first on one host: an OS file lock taken and released per check, on a
 * file in the same directory kind as the cxc files ({@code /dev/shm}). Uncontended, so this is the
 * lock's floor: two system calls ({@code fcntl}) and the JDK's lock bookkeeping.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class FileLockBenchmark {

    private ScratchDirectory directory;
    private FileChannel channel;

    @Setup(Level.Trial)
    public void open() throws IOException {
        directory = ScratchDirectory.create();
        channel =
                FileChannel.open(
                        directory.resolve("leader.lock"),
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        channel.close();
        directory.close();
    }

    @Benchmark
    public boolean tryLockAndRelease() throws IOException {
        FileLock lock = channel.tryLock();
        if (lock == null) {
            throw new IllegalStateException("nobody else holds the lock, yet tryLock() failed");
        }
        lock.release();
        return lock.isValid();
    }
}
