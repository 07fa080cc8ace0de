package io.subetha.cxc.benchmarks;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.versioned.SharedVersionedChain;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The event log beside its anchor, Chronicle Queue 5.x, in one fork each with the same payload (64
 * raw bytes) and the same JVM options (Chronicle's add-opens, which do not change our code):
 *
 * <ul>
 *   <li>{@code cxcEmit} vs {@code chronicleAppend}: one event appended. Our log is bounded, so
 *       every {@link #CAPACITY} emits the benchmark thread drains it (a fold that reads each
 *       event): that amortised cost is in the figure. Chronicle's queue grows its files instead.
 *   <li>{@code cxcDrainAndFold1000} vs {@code chronicleTail1000}: 1,000 events written beforehand
 *       (outside the measurement), then folded or read by a tailer; per event.
 *   <li>{@code cxcReadCurrent}, {@code chainPush}, {@code chainReadAt}: ours alone.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {
            "-Xms256m",
            "-Xmx256m",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "-Dchronicle.analytics.disable=true",
            "-Dchronicle.announcer.disable=true"
        })
@State(Scope.Thread)
public class EventLogBenchmark {

    static final int PAYLOAD = 64;
    static final int CAPACITY = 1 << 16;
    static final int BATCH = 1_000;

    private ScratchDirectory directory;
    private EventStateLog<byte[], Long> log;
    private SharedVersionedChain<byte[]> chain;
    private long newestVersion;
    private ChronicleQueue queue;
    private ExcerptAppender appender;
    private ExcerptTailer tailer;
    private final byte[] payload = new byte[PAYLOAD];
    private final byte[] chronicleRead = new byte[PAYLOAD];

    @Setup(Level.Trial)
    public void open() {
        directory = ScratchDirectory.create();
        log =
                EventStateLog.TYPE.create(
                        directory.resolve("events.cxc"),
                        new EventStateLog.Settings<>(
                                CAPACITY, FixedCodec.bytes(PAYLOAD), FixedCodec.INT64, 0L));
        chain =
                SharedVersionedChain.TYPE.create(
                        directory.resolve("chain.cxc"),
                        new SharedVersionedChain.Settings<>(64, FixedCodec.bytes(PAYLOAD)));
        for (int i = 0; i < 64; i++) {
            newestVersion = chain.push(payload);
        }
        queue = ChronicleQueue.singleBuilder(directory.resolve("chronicle")).build();
        appender = queue.createAppender();
        tailer = queue.createTailer();
    }

    @TearDown(Level.Trial)
    public void close() {
        queue.close();
        log.close();
        chain.close();
        directory.close();
    }

    static Long count(Long total, byte[] event) {
        return total + event.length;
    }

    @Benchmark
    public boolean cxcEmit() {
        if (!log.tryEmit(payload)) {
            log.drainAndFold(EventLogBenchmark::count);
            return log.tryEmit(payload);
        }
        return true;
    }

    @Benchmark
    public void chronicleAppend() {
        try (DocumentContext dc = appender.writingDocument()) {
            dc.wire().bytes().write(payload);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int cxcDrainAndFold1000(Batch batch) {
        return batch.log.drainAndFold(EventLogBenchmark::count);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long chronicleTail1000(ChronicleBatch batch) {
        // batch.tailer: the injected state's, the one positioned before the batch it appended.
        long read = 0;
        for (int i = 0; i < BATCH; i++) {
            try (DocumentContext dc = batch.tailer.readingDocument()) {
                if (!dc.isPresent()) {
                    throw new IllegalStateException("the tailer found " + i + " of " + BATCH);
                }
                read += dc.wire().bytes().read(chronicleRead);
            }
        }
        return read;
    }

    @Benchmark
    public Long cxcReadCurrent() {
        return log.readCurrent();
    }

    @Benchmark
    public long chainPush() {
        return chain.push(payload);
    }

    @Benchmark
    public byte[] chainReadAt() {
        return chain.readAt(chain.currentVersion() - 3).orElseThrow();
    }

    /** Emits a batch into our log before each timed invocation. */
    @State(Scope.Thread)
    public static class Batch {
        // The state instance JMH injects here: the benchmark drains the log this one filled.
        EventStateLog<byte[], Long> log;

        @Setup(Level.Invocation)
        public void emit(EventLogBenchmark bench) {
            log = bench.log;
            byte[] event = new byte[PAYLOAD];
            for (int i = 0; i < BATCH; i++) {
                log.emit(event);
            }
        }
    }

    /** Appends a batch to Chronicle before each timed invocation; the tailer reads from there. */
    @State(Scope.Thread)
    public static class ChronicleBatch {
        ExcerptTailer tailer;

        @Setup(Level.Invocation)
        public void append(EventLogBenchmark bench) {
            tailer = bench.tailer;
            tailer.toEnd();
            byte[] event = new byte[PAYLOAD];
            for (int i = 0; i < BATCH; i++) {
                try (DocumentContext dc = bench.appender.writingDocument()) {
                    dc.wire().bytes().write(event);
                }
            }
        }
    }
}
