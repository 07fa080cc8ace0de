package io.subetha.cxc.benchmarks;

import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.io.IOException;
import java.nio.MappedByteBuffer;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Two threads of the leading process on one election (one shared handle, as a Spring application
 * has): the fast path and the heartbeat under contention, with the raw read and compare from two
 * threads as their baseline. On a machine with two vCPUs and other load these figures are noisy.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@Threads(2)
@State(Scope.Benchmark)
public class ContendedLeaderElectionBenchmark {

    private ScratchDirectory directory;
    private SharedLeaderElection election;
    private MappedByteBuffer baseline;
    private long me;

    @Setup(Level.Trial)
    public void claim() throws IOException {
        directory = ScratchDirectory.create();
        election =
                SharedLeaderElection.TYPE.create(
                        directory.resolve("leader.cxc"), SharedLeaderElection.Settings.DEFAULTS);
        me = Pids.current();
        if (!election.tryClaimLeadership(me)) {
            throw new IllegalStateException("setup could not claim an empty election");
        }
        baseline = BaselineBenchmark.map(directory);
        BaselineBenchmark.LONG.setVolatile(baseline, BaselineBenchmark.LEADER_WORD, me);
    }

    @TearDown(Level.Trial)
    public void remove() {
        election.close();
        directory.close();
    }

    @Benchmark
    public boolean mappedVolatileReadAndCompare() {
        return ((long) BaselineBenchmark.LONG.getVolatile(baseline, BaselineBenchmark.LEADER_WORD)
                        & 0xFFFF_FFFFL)
                == me;
    }

    @Benchmark
    public boolean tryClaimLeadershipAsLeader() {
        return election.tryClaimLeadership(me);
    }

    @Benchmark
    public boolean beatAsLeader() {
        return election.beatAsLeader(me);
    }
}
