package io.subetha.cxc.benchmarks;

import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.values.SharedUmbraPointer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Equality of {@link SharedUmbraPointer}s against {@code String.equals} and {@code Arrays.equals}
 * (the anchors) on the same 4096 pairs of ASCII strings, compared one pair per op in order. The
 * pointers are kept as Umbra keeps them, flat (their 16 bytes in long arrays, compared by {@link
 * SharedUmbraPointer#equals(SharedRegion, long, long, long, long)}); the strings and byte arrays
 * are distinct heap objects. {@code umbraEquals} keeps each pointer's 16 bytes together, as the
 * layout is stored (head and tail adjacent in one long array per side), and compares by {@link
 * SharedUmbraPointer#equals(SharedRegion, long[], int, long[], int)}: one 8-byte load per side
 * decides a pair that differs in length or prefix. {@code umbraEqualsWords} is the earlier row:
 * heads and tails in four separate arrays, all four words loaded before the compare. {@code shape}:
 * the pair differs in its first 4 bytes ({@code prefix}), in length only ({@code length}: one byte
 * longer), in its last byte ({@code late}), or not at all ({@code equal}); {@code length}: 10 bytes
 * (inline) or 64 (in the region). {@code overhead} is the same shape with no compare at all: the
 * pair index stepped and a boolean returned. The {@code …Scan} rows compare all 4096 pairs in one
 * invocation and count the equal ones (reported per pair): JMH's own cost per invocation, about as
 * large as a compare decided by the heads, is then spread over the pairs, and what is left is each
 * compare's cost in a loop, as a join or a filter runs it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class SharedUmbraPointerBenchmark {

    static final int PAIRS = 4096;

    @Param({"prefix", "length", "late", "equal"})
    public String shape;

    @Param({"10", "64"})
    public int length;

    private ScratchDirectory directory;
    private SharedRegion region;
    private final long[] flatA = new long[2 * PAIRS];
    private final long[] flatB = new long[2 * PAIRS];
    private final long[] headA = new long[PAIRS];
    private final long[] tailA = new long[PAIRS];
    private final long[] headB = new long[PAIRS];
    private final long[] tailB = new long[PAIRS];
    private final String[] stringA = new String[PAIRS];
    private final String[] stringB = new String[PAIRS];
    private final byte[][] bytesA = new byte[PAIRS][];
    private final byte[][] bytesB = new byte[PAIRS][];
    private int i;

    @Setup(Level.Trial)
    public void pairs() {
        directory = ScratchDirectory.create();
        region =
                SharedRegion.TYPE.create(
                        directory.resolve("strings.region"), new SharedRegion.Settings(1 << 20));
        SplittableRandom random = new SplittableRandom(11);
        for (int p = 0; p < PAIRS; p++) {
            byte[] a = new byte[length];
            for (int j = 0; j < length; j++) {
                a[j] = (byte) ('a' + random.nextInt(26));
            }
            byte[] b;
            switch (shape) {
                case "prefix":
                    b = a.clone();
                    b[random.nextInt(4)] ^= 0x01;
                    break;
                case "length":
                    b = Arrays.copyOf(a, length + 1);
                    b[length] = 'z';
                    break;
                case "late":
                    b = a.clone();
                    b[length - 1] ^= 0x01;
                    break;
                default:
                    b = a.clone();
            }
            SharedUmbraPointer pa = SharedUmbraPointer.store(region, a);
            SharedUmbraPointer pb = SharedUmbraPointer.store(region, b);
            flatA[2 * p] = pa.head();
            flatA[2 * p + 1] = pa.tail();
            flatB[2 * p] = pb.head();
            flatB[2 * p + 1] = pb.tail();
            headA[p] = pa.head();
            tailA[p] = pa.tail();
            headB[p] = pb.head();
            tailB[p] = pb.tail();
            stringA[p] = new String(a, StandardCharsets.US_ASCII);
            stringB[p] = new String(b, StandardCharsets.US_ASCII);
            bytesA[p] = a;
            bytesB[p] = b;
        }
    }

    @TearDown(Level.Trial)
    public void remove() {
        region.close();
        directory.close();
    }

    private int next() {
        int p = i;
        i = (p + 1) & (PAIRS - 1);
        return p;
    }

    /**
     * The benchmark's own cost, no compare: the pair index stepped and a boolean returned, as in
     * every row. Subtracted from a row, what is left is the compare's own time.
     */
    @Benchmark
    public boolean overhead() {
        return next() == PAIRS; // never: next() is below PAIRS
    }

    @Benchmark
    public boolean umbraEquals() {
        int p = 2 * next();
        return SharedUmbraPointer.equals(region, flatA, p, flatB, p);
    }

    @Benchmark
    public boolean umbraEqualsWords() {
        int p = next();
        return SharedUmbraPointer.equals(region, headA[p], tailA[p], headB[p], tailB[p]);
    }

    @Benchmark
    public boolean stringEquals() {
        int p = next();
        return stringA[p].equals(stringB[p]);
    }

    @Benchmark
    @OperationsPerInvocation(PAIRS)
    public int umbraEqualsScan() {
        int equal = 0;
        for (int p = 0; p < 2 * PAIRS; p += 2) {
            if (SharedUmbraPointer.equals(region, flatA, p, flatB, p)) {
                equal++;
            }
        }
        return equal;
    }

    @Benchmark
    @OperationsPerInvocation(PAIRS)
    public int stringEqualsScan() {
        int equal = 0;
        for (int p = 0; p < PAIRS; p++) {
            if (stringA[p].equals(stringB[p])) {
                equal++;
            }
        }
        return equal;
    }

    @Benchmark
    public boolean arraysEquals() {
        int p = next();
        return Arrays.equals(bytesA[p], bytesB[p]);
    }
}
