package io.subetha.cxc.benchmarks;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.resolution.BoundedLevel;
import io.subetha.cxc.resolution.CascadeSharedLevel;
import io.subetha.cxc.resolution.SharedAsyncPointer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.map.ChronicleMap;
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
 * The resolution family against what users pick instead, one thread, long keys and values: the
 * cascade's in-process level ({@link BoundedLevel}) against Caffeine, its shared mapped-file level
 * ({@link CascadeSharedLevel}, in {@code /dev/shm}) against Chronicle Map persisted to a file in
 * the same directory, each as get hit, get miss and put (an overwrite of a present key); and a
 * resolved {@link SharedAsyncPointer}'s read. {@value #KEYS} keys are present, walked in a
 * scattered order so no single entry stays in L1.
 *
 * <p>Chronicle Map needs its JDK internals opened on Java 17: the fork arguments below, given to
 * every benchmark of this class alike.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {
            "-Xms256m",
            "-Xmx256m",
            // Chronicle's usage analytics would try the network from inside the measurement.
            "-Dchronicle.analytics.disable=true",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED"
        })
public class ResolutionBenchmark {

    static final int KEYS = 4096;
    static final int CAPACITY = 4 * KEYS;

    /** Never inserted: a miss key for every present one. */
    static final long MISS = 1L << 40;

    /** Walks the present keys in a scattered order (an odd stride over a power of two). */
    @State(Scope.Thread)
    public static class Keys {
        int next;

        long key() {
            next = (next + 1_640_531_527) & (KEYS - 1);
            return next;
        }
    }

    @State(Scope.Thread)
    public static class Memory {
        BoundedLevel<Long, Long> level;
        Cache<Long, Long> caffeine;

        @Setup(Level.Trial)
        public void fill() {
            level = new BoundedLevel<>("memory", CAPACITY);
            caffeine = Caffeine.newBuilder().maximumSize(CAPACITY).build();
            for (long k = 0; k < KEYS; k++) {
                level.put(k, k);
                caffeine.put(k, k);
            }
        }
    }

    @State(Scope.Thread)
    public static class Shared {
        ScratchDirectory directory;
        CascadeSharedLevel<Long, Long> level;
        ChronicleMap<Long, Long> chronicle;

        @Setup(Level.Trial)
        public void fill() {
            directory = ScratchDirectory.create();
            level =
                    CascadeSharedLevel.TYPE.create(
                            directory.resolve("shared.cxc"),
                            new CascadeSharedLevel.Settings<>(
                                    CAPACITY, FixedCodec.INT64, FixedCodec.INT64));
            try {
                chronicle =
                        ChronicleMap.of(Long.class, Long.class)
                                .name("resolution-benchmark")
                                .entries(CAPACITY)
                                .createPersistedTo(directory.resolve("chronicle.dat").toFile());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (long k = 0; k < KEYS; k++) {
                if (!level.insert(k, k)) {
                    throw new IllegalStateException("setup dropped key " + k);
                }
                chronicle.put(k, k);
            }
        }

        @TearDown(Level.Trial)
        public void remove() {
            level.close();
            chronicle.close();
            directory.close();
        }
    }

    @State(Scope.Thread)
    public static class Pointer {
        ScratchDirectory directory;
        SharedAsyncPointer<Long> pointer;
        final Duration timeout = Duration.ofSeconds(1);

        @Setup(Level.Trial)
        public void resolve() {
            directory = ScratchDirectory.create();
            pointer =
                    SharedAsyncPointer.TYPE.create(
                            directory.resolve("pointer.cxc"),
                            new SharedAsyncPointer.Settings<>(FixedCodec.INT64));
            pointer.getOrFetch(() -> 123_456L, timeout);
        }

        @TearDown(Level.Trial)
        public void remove() {
            pointer.close();
            directory.close();
        }
    }

    // ------------------------------------------------------------------- in-process level

    @Benchmark
    public Long memoryGetHit(Memory m, Keys k) {
        return m.level.get(k.key());
    }

    @Benchmark
    public Long caffeineGetHit(Memory m, Keys k) {
        return m.caffeine.getIfPresent(k.key());
    }

    @Benchmark
    public Long memoryGetMiss(Memory m, Keys k) {
        return m.level.get(k.key() + MISS);
    }

    @Benchmark
    public Long caffeineGetMiss(Memory m, Keys k) {
        return m.caffeine.getIfPresent(k.key() + MISS);
    }

    @Benchmark
    public void memoryPut(Memory m, Keys k) {
        long key = k.key();
        m.level.put(key, key);
    }

    @Benchmark
    public void caffeinePut(Memory m, Keys k) {
        long key = k.key();
        m.caffeine.put(key, key);
    }

    // ------------------------------------------------------------------------ shared level

    @Benchmark
    public Long sharedGetHit(Shared s, Keys k) {
        return s.level.get(k.key());
    }

    @Benchmark
    public Long chronicleGetHit(Shared s, Keys k) {
        return s.chronicle.get(k.key());
    }

    @Benchmark
    public Long sharedGetMiss(Shared s, Keys k) {
        return s.level.get(k.key() + MISS);
    }

    @Benchmark
    public Long chronicleGetMiss(Shared s, Keys k) {
        return s.chronicle.get(k.key() + MISS);
    }

    @Benchmark
    public boolean sharedPut(Shared s, Keys k) {
        long key = k.key();
        return s.level.insert(key, key);
    }

    @Benchmark
    public Long chroniclePut(Shared s, Keys k) {
        long key = k.key();
        return s.chronicle.put(key, key);
    }

    // ----------------------------------------------------------------------- async pointer

    @Benchmark
    public Long asyncPointerHit(Pointer p) {
        return p.pointer.getOrFetch(() -> 0L, p.timeout);
    }
}
