package io.subetha.cxc.benchmarks;

import io.subetha.cxc.election.LeaderElectionDescriptor;
import io.subetha.cxc.mmf.HeaderDescriptor;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * The physical limit on this machine: the raw atomics a leadership check is built from, with no cxc
 * code in between. The mapped benchmarks use the same kind of file and the same shape as {@link
 * io.subetha.cxc.election.SharedLeaderElection}'s fast path: a volatile read of an aligned u64 at
 * the leader word's file offset in a {@code /dev/shm} mapping, and a compare of its low 32 bits
 * with a PID.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class BaselineBenchmark {

    static final VarHandle LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Where {@code SharedLeaderElection} keeps its leader word, from the start of the file. */
    static final int LEADER_WORD =
            HeaderDescriptor.HEADER_LENGTH + LeaderElectionDescriptor.LEADER_WORD_OFFSET;

    private ScratchDirectory directory;
    private MappedByteBuffer mapped;
    private long pid;
    private long casValue;
    private final AtomicInteger heapInteger = new AtomicInteger();
    private int heapValue;

    @Setup(Level.Trial)
    public void mapFile() throws IOException {
        directory = ScratchDirectory.create();
        mapped = map(directory);
        pid = ProcessHandle.current().pid();
        LONG.setVolatile(mapped, LEADER_WORD, pid);
        casValue = pid;
    }

    static MappedByteBuffer map(ScratchDirectory directory) throws IOException {
        try (FileChannel channel =
                FileChannel.open(
                        directory.resolve("baseline.bin"),
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE)) {
            return channel.map(
                    FileChannel.MapMode.READ_WRITE,
                    0,
                    HeaderDescriptor.HEADER_LENGTH + LeaderElectionDescriptor.BODY_LENGTH);
        }
    }

    @TearDown(Level.Trial)
    public void removeFile() {
        directory.close();
    }

    /** What a leadership check must do at the least: read the leader word, compare the PID. */
    @Benchmark
    public boolean mappedVolatileReadAndCompare() {
        return ((long) LONG.getVolatile(mapped, LEADER_WORD) & 0xFFFF_FFFFL) == pid;
    }

    /** A successful compare-and-set of the leader word: what a claim costs at the least. */
    @Benchmark
    public boolean mappedCompareAndSet() {
        long expected = casValue;
        casValue = expected + 1;
        return LONG.compareAndSet(mapped, LEADER_WORD, expected, expected + 1);
    }

    /** The in-process reference point: a successful heap CAS. */
    @Benchmark
    public boolean heapAtomicIntegerCompareAndSet() {
        int expected = heapValue;
        heapValue = expected + 1;
        return heapInteger.compareAndSet(expected, expected + 1);
    }
}
