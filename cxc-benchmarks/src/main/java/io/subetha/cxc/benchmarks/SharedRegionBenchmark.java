package io.subetha.cxc.benchmarks;

import io.subetha.cxc.region.SharedRegion;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link SharedRegion} on a real mapped file in {@code /dev/shm}: an allocate + free pair of 64
 * bytes on an empty 1 MiB region (served by the handle's free cache after the first), of 300 bytes
 * (too big for the cache: the locked path), and of random sizes (1..1024 bytes) on a region kept at
 * 256 blocks held (each op frees the oldest and allocates a new one, so the free list is
 * fragmented; the cache serves only a freed block of exactly the size asked, a fraction of them);
 * alone and with 2 threads on one region (sharing one handle, so its cache). {@code cache}: the
 * handle's free cache on (the default) or off ({@link SharedRegion.Settings#freeCache()}), so that
 * the pair with and without it are measured in one run. The anchor is {@code
 * BaselineBenchmark.mappedCompareAndSet}: a pair is at least four of those (the lock taken and
 * released twice). After the random rows, the fork prints the fragmentation it left: largest free
 * block / free bytes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class SharedRegionBenchmark {

    static final long CAPACITY = 1 << 20;
    static final int HELD = 256;

    /** One region for every thread of a benchmark. */
    @State(Scope.Benchmark)
    public static class Region {
        /** The handle's free cache on (the default) or off (every pair takes the lock). */
        @Param({"true", "false"})
        public boolean cache;

        ScratchDirectory directory;
        SharedRegion region;

        @Setup(Level.Trial)
        public void create() {
            directory = ScratchDirectory.create();
            region =
                    SharedRegion.TYPE.create(
                            directory.resolve("bench.region"),
                            new SharedRegion.Settings(CAPACITY).withFreeCache(cache));
        }

        @TearDown(Level.Trial)
        public void remove() {
            long free = region.freeBytes();
            if (free > 0) {
                System.out.printf(
                        "%nfragmentation: largest free block %d of %d free bytes (%.3f) in %d free"
                                + " blocks, %d blocks held (%d of them in the handle's free"
                                + " cache)%n",
                        region.largestFreeBlock(),
                        free,
                        region.largestFreeBlock() / (double) free,
                        region.freeList().size(),
                        region.usedBlocks(),
                        region.cachedBlocks());
            }
            region.close();
            directory.close();
        }
    }

    /** Each thread's own ring of held blocks and its sizes. */
    @State(Scope.Thread)
    public static class Ring {
        final long[] held = new long[HELD];
        final int[] sizes = new int[4096];
        int next;
        int size;

        @Setup(Level.Trial)
        public void fill(Region shared) {
            SplittableRandom random = new SplittableRandom(42);
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = 1 + random.nextInt(1024);
            }
            for (int i = 0; i < HELD; i++) {
                held[i] = shared.region.allocate(sizes[i]);
            }
        }
    }

    @Benchmark
    public long allocateFree64(Region shared) {
        long handle = shared.region.allocate(64);
        shared.region.free(handle);
        return handle;
    }

    /**
     * A pair too big for the free cache (300 bytes: a 336-byte block): the locked, journalled path
     * every pair took before the cache.
     */
    @Benchmark
    public long allocateFree300(Region shared) {
        long handle = shared.region.allocate(300);
        shared.region.free(handle);
        return handle;
    }

    @Benchmark
    public long allocateFreeRandom(Region shared, Ring ring) {
        return churn(shared, ring);
    }

    @Benchmark
    @Threads(2)
    public long allocateFree64TwoThreads(Region shared) {
        long handle = shared.region.allocate(64);
        shared.region.free(handle);
        return handle;
    }

    @Benchmark
    @Threads(2)
    public long allocateFreeRandomTwoThreads(Region shared, Ring ring) {
        return churn(shared, ring);
    }

    private static long churn(Region shared, Ring ring) {
        int slot = ring.next;
        ring.next = (slot + 1) & (HELD - 1);
        shared.region.free(ring.held[slot]);
        int size = ring.sizes[ring.size];
        ring.size = (ring.size + 1) & (ring.sizes.length - 1);
        long handle = shared.region.allocate(size);
        ring.held[slot] = handle;
        return handle;
    }
}
