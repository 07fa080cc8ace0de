package io.subetha.cxc.benchmarks;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.PriorityFanout;
import java.util.List;
import java.util.concurrent.PriorityBlockingQueue;
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
 * One submit and one take per op in one process, so ops/s is submit+drain pairs per second: the
 * issue's target is 1 M/s. {@code submitDrainHighest} takes through {@code drainHighest(1)} (at
 * most once; it looks down from the top level), {@code submitClaimAck} through {@code
 * claimHighest(1)} and {@code ack} (at least once). The anchor is the JDK's {@link
 * PriorityBlockingQueue} (one process only, no crash safety), offer + poll.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class PriorityFanoutBenchmark {

    private ScratchDirectory directory;
    private PriorityFanout<Long> fanout;
    private PriorityBlockingQueue<Long> anchor;
    private long next;

    @Setup(Level.Trial)
    public void create() {
        directory = ScratchDirectory.create();
        fanout =
                PriorityFanout.TYPE.create(
                        directory.resolve("bench.fanout"),
                        new PriorityFanout.Settings<>(1024, FixedCodec.INT64));
        anchor = new PriorityBlockingQueue<>();
    }

    @TearDown(Level.Trial)
    public void remove() {
        fanout.close();
        directory.close();
    }

    @Benchmark
    public List<Long> submitDrainHighest() {
        long item = next++;
        fanout.submit((int) (item & 7), item);
        return fanout.drainHighest(1);
    }

    @Benchmark
    public boolean submitClaimAck() {
        long item = next++;
        fanout.submit((int) (item & 7), item);
        return fanout.claimHighest(1).ack();
    }

    @Benchmark
    public Long priorityBlockingQueueOfferPoll() {
        long item = next++;
        anchor.offer(item & 7);
        return anchor.poll();
    }
}
