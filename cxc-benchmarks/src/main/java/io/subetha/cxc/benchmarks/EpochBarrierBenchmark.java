package io.subetha.cxc.benchmarks;

import io.subetha.cxc.liveness.EpochBarrier;
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
 * One {@link EpochBarrier} phase with a single participant (a 1-slot barrier in {@code /dev/shm}):
 * arrive, find every live participant arrived, advance the epoch by CAS, return. The cost of the
 * barrier itself, with no waiting for anyone.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class EpochBarrierBenchmark {

    private ScratchDirectory directory;
    private EpochBarrier barrier;
    private int epoch;

    @Setup(Level.Trial)
    public void join() {
        directory = ScratchDirectory.create();
        barrier =
                EpochBarrier.TYPE.create(
                        directory.resolve("phases.barrier"), new EpochBarrier.Settings(1));
        epoch = barrier.join();
    }

    @TearDown(Level.Trial)
    public void remove() {
        barrier.close();
        directory.close();
    }

    /** A whole phase: {@code await} returns once this, the only participant, has arrived. */
    @Benchmark
    public int awaitPhaseAlone() {
        barrier.await(epoch);
        return ++epoch;
    }
}
