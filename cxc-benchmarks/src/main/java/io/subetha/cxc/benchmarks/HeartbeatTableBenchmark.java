package io.subetha.cxc.benchmarks;

import io.subetha.cxc.liveness.HeartbeatSnapshot;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.process.Pids;
import java.util.List;
import java.util.Optional;
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
 * {@link HeartbeatTable} on a real mapped file in {@code /dev/shm}: a 64-slot table (the starter's
 * default capacity) with every slot held. Slot 0 is this process's; slots 1..63 are registered for
 * 63 other PIDs, as 63 other processes would have. {@code register} claims a free slot without
 * probing its PID, and neither {@code beat}, {@code snapshot} nor {@code scan} probes processes, so
 * the other PIDs need not be running.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class HeartbeatTableBenchmark {

    static final int CAPACITY = 64;

    /** Stand-ins for the other participants' PIDs: valid, above any default pid_max. */
    static final long FIRST_OTHER_PID = 10_000_000;

    private ScratchDirectory directory;
    private HeartbeatTable table;
    private int mySlot;

    @Setup(Level.Trial)
    public void fill() {
        directory = ScratchDirectory.create();
        table =
                HeartbeatTable.TYPE.create(
                        directory.resolve("participants.heartbeat"),
                        new HeartbeatTable.Settings(CAPACITY));
        mySlot = table.register(Pids.current());
        for (int other = 1; other < CAPACITY; other++) {
            table.register(FIRST_OTHER_PID + other);
        }
        if (table.scan().size() != CAPACITY) {
            throw new IllegalStateException("expected all " + CAPACITY + " slots held");
        }
    }

    @TearDown(Level.Trial)
    public void remove() {
        table.close();
        directory.close();
    }

    /** This process's beat: a volatile read of its owner word, a compare, two release stores. */
    @Benchmark
    public int beat() {
        table.beat(mySlot);
        return mySlot;
    }

    /** One slot read into a {@link HeartbeatSnapshot}. */
    @Benchmark
    public Optional<HeartbeatSnapshot> snapshot() {
        return table.snapshot(mySlot);
    }

    /** Every slot of the full 64-slot table read, one snapshot each. */
    @Benchmark
    public List<HeartbeatSnapshot> scan64() {
        return table.scan();
    }
}
