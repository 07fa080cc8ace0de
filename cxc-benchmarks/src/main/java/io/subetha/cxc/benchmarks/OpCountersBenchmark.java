package io.subetha.cxc.benchmarks;

import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.observe.OpCounters;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The op count every cxc fast path pays, alone: a leadership check ≈ the baseline read and compare
 * + this ({@link UncountedLeaderElectionBenchmark} measures the fast path with counting switched
 * off). The floor row is the least any exact in-memory count can cost: one load, add and opaque
 * store to a cell only this thread writes, with no lookup of the cell.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class OpCountersBenchmark {

    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);

    private final OpCounters counters =
            new OpCounters(
                    List.of("try_claim", "beat", "tick_epoch", "step_down", "read", "liveness"));

    /** Padded so the counted element has a cache line of its own. */
    private final long[] cell = new long[16];

    @Benchmark
    public void floorIncrement() {
        COUNT.setOpaque(cell, 8, cell[8] + 1);
    }

    @Benchmark
    public void increment() {
        counters.increment(SharedLeaderElection.Op.TRY_CLAIM);
    }
}
