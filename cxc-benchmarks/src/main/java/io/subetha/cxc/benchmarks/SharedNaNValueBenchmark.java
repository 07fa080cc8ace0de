package io.subetha.cxc.benchmarks;

import io.subetha.cxc.values.SharedNaNValue;
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
 * NaN-boxing's pure functions, box then unbox (with the tag check), on a value that changes every
 * op so nothing folds; run with {@code -prof gc} to see that they allocate nothing. The anchor is
 * Java's own polymorphic value, {@code Object}: {@code Integer.valueOf}/{@code Double.valueOf} then
 * an {@code instanceof} to unbox it (the caches cover only small integers).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class SharedNaNValueBenchmark {

    private int counter;
    private double real = 0.5;

    @Benchmark
    public int boxUnboxInt() {
        return SharedNaNValue.unboxInt(SharedNaNValue.box(counter++));
    }

    @Benchmark
    public double boxUnboxDouble() {
        real += 1.25;
        return SharedNaNValue.unboxDouble(SharedNaNValue.box(real));
    }

    /** Dispatch on the tag, as a reader of a cell of unknown type does. */
    @Benchmark
    public long boxTagOfUnbox() {
        int c = counter++;
        long bits = (c & 1) == 0 ? SharedNaNValue.box(c) : SharedNaNValue.box(c * 0.5);
        return SharedNaNValue.tagOf(bits) == SharedNaNValue.TAG_INT32
                ? SharedNaNValue.unboxInt(bits)
                : (long) SharedNaNValue.unboxDouble(bits);
    }

    @Benchmark
    public int objectBoxUnboxInt() {
        Object boxed = Integer.valueOf(counter++ | 0x1000);
        return boxed instanceof Integer ? (Integer) boxed : -1;
    }

    @Benchmark
    public long objectBoxInstanceofUnbox() {
        int c = counter++ | 0x1000;
        Object boxed =
                (c & 1) == 0 ? (Object) Integer.valueOf(c) : (Object) Double.valueOf(c * 0.5);
        return boxed instanceof Integer ? (Integer) boxed : (long) (double) (Double) boxed;
    }
}
