package io.subetha.cxc.benchmarks;

import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
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
 * One {@link ElectionParticipant#tick()} of the sitting leader, on a real file in {@code /dev/shm}:
 * what the ticker spends per interval (50 ms by default), most of it checking that the path still
 * names the mapped file. Beside it, that check's system calls alone: a {@code stat}, and the {@code
 * stat} plus the open, 8-byte read and close of the incarnation the tick does since the file key
 * alone proved unreliable.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class ElectionParticipantBenchmark {

    ScratchDirectory directory;
    SharedLeaderElection election;
    ElectionParticipant participant;
    Path path;

    @Setup(Level.Trial)
    public void lead() {
        directory = ScratchDirectory.create();
        path = directory.resolve("leader.cxc");
        election = SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS);
        participant = new ElectionParticipant(election, Pids.current(), 3, Duration.ofMillis(50));
        if (!participant.tick().leader()) {
            throw new IllegalStateException("setup could not lead an empty election");
        }
    }

    @TearDown(Level.Trial)
    public void remove() {
        participant.election().close();
        directory.close();
    }

    @Benchmark
    public ElectionParticipant.TickOutcome leaderTick() {
        return participant.tick();
    }

    @Benchmark
    public Object statOnly() throws Exception {
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
    }

    @Benchmark
    public long statAndIncarnationRead() throws Exception {
        Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return SharedLeaderElection.incarnationAt(path); // the tick's own read
    }
}
