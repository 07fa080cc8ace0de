package io.subetha.cxc.benchmarks;

import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessStatus;
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
 * {@link SharedLeaderElection} as shipped (op counting on), one thread, on a real mapped file in
 * {@code /dev/shm}. Compare the fast path with {@link
 * BaselineBenchmark#mappedVolatileReadAndCompare} and the writes with {@link
 * BaselineBenchmark#mappedCompareAndSet}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class SharedLeaderElectionBenchmark {

    /** PID 1 is alive in every PID namespace and lower than ours: a sitting leader we lose to. */
    static final long LIVE_LOWER_PID = 1;

    /** An election this process leads, claimed before measuring. */
    @State(Scope.Thread)
    public static class Leading {
        ScratchDirectory directory;
        SharedLeaderElection election;
        long me;

        @Setup(Level.Trial)
        public void claim() {
            directory = ScratchDirectory.create();
            election =
                    SharedLeaderElection.TYPE.create(
                            directory.resolve("leader.cxc"),
                            SharedLeaderElection.Settings.DEFAULTS);
            me = Pids.current();
            if (!election.tryClaimLeadership(me)) {
                throw new IllegalStateException("setup could not claim an empty election");
            }
        }

        @TearDown(Level.Trial)
        public void remove() {
            election.close();
            directory.close();
        }
    }

    /** An election led by another live process (PID 1): this process is a follower. */
    @State(Scope.Thread)
    public static class Following {
        ScratchDirectory directory;
        SharedLeaderElection election;
        long me;

        @Setup(Level.Trial)
        public void claimForLeader() {
            directory = ScratchDirectory.create();
            election =
                    SharedLeaderElection.TYPE.create(
                            directory.resolve("leader.cxc"),
                            SharedLeaderElection.Settings.DEFAULTS);
            me = Pids.current();
            if (!election.tryClaimLeadership(LIVE_LOWER_PID)) {
                throw new IllegalStateException("setup could not claim an empty election");
            }
            if (election.leaderStatus() != ProcessStatus.ALIVE) {
                throw new IllegalStateException(
                        "PID 1 must look alive to measure the liveness check against a live"
                                + " leader, but it is "
                                + election.leaderStatus());
            }
        }

        @TearDown(Level.Trial)
        public void remove() {
            election.close();
            directory.close();
        }
    }

    /** The fast path: the sitting leader re-claims (one volatile read, a compare, an op count). */
    @Benchmark
    public boolean tryClaimLeadershipAsLeader(Leading state) {
        return state.election.tryClaimLeadership(state.me);
    }

    /** A follower's claim that loses to a lower, fresh leader: three volatile reads. */
    @Benchmark
    public boolean tryClaimLeadershipAsFollower(Following state) {
        return state.election.tryClaimLeadership(state.me);
    }

    /** A pure read, for reference: {@code isLeader} by the leader. */
    @Benchmark
    public boolean isLeader(Leading state) {
        return state.election.isLeader(state.me);
    }

    @Benchmark
    public boolean beatAsLeader(Leading state) {
        return state.election.beatAsLeader(state.me);
    }

    @Benchmark
    public long tickEpoch(Leading state) {
        return state.election.tickEpoch();
    }

    /** The liveness check against a live leader: reads {@code /proc/1/stat}, returns false. */
    @Benchmark
    public boolean claimIfLeaderDead(Following state) {
        return state.election.claimIfLeaderDead(state.me);
    }

    @Benchmark
    public ProcessStatus leaderStatus(Following state) {
        return state.election.leaderStatus();
    }

    /** A full handover per op: the leader steps down, then claims again under a new term. */
    @Benchmark
    public boolean stepDownAndReclaim(Leading state) {
        state.election.stepDown(state.me);
        return state.election.tryClaimLeadership(state.me);
    }
}
