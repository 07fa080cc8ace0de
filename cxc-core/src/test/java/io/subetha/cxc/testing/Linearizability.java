package io.subetha.cxc.testing;

import io.subetha.cxc.mmf.AtomicBuffer;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;

/**
 * Lincheck's options for the shared structures' linearizability tests, sized so that all of them
 * together run in about two minutes on two cores. {@code -Dcxc.lincheck.scale=N} multiplies the
 * iterations (new scenarios) by N for a longer run on demand.
 *
 * <p><b>Model checking over mapped memory.</b> Lincheck's model checker cannot follow an access
 * through a {@code byteBufferViewVarHandle} (it fails with "Unsupported VarHandle type:
 * VarHandleByteArrayAsLongs$ByteBufferHandle"), and every word of a primitive is such an access.
 * {@link #modelChecking} therefore declares each {@link AtomicBuffer} method one atomic step: the
 * checker switches threads between any two accesses to the file, which is the granularity the
 * protocols are written at, but it cannot tell which word an access touches.
 */
public final class Linearizability {

    /** The multiplier of the iterations, 1 unless {@code cxc.lincheck.scale} says otherwise. */
    public static final int SCALE = Integer.getInteger("cxc.lincheck.scale", 1);

    /** Parallel threads per scenario, each with a handle of its own. */
    public static final int THREADS = 3;

    private static final int ACTORS_PER_THREAD = 3;
    private static final int STRESS_ITERATIONS = 15;
    private static final int STRESS_INVOCATIONS = 200;
    private static final int MODEL_CHECKING_ITERATIONS = 4;
    private static final int MODEL_CHECKING_INVOCATIONS = 100;

    private Linearizability() {}

    /**
     * Scenarios run on real threads, each many times over: what the hardware, the JIT and the
     * scheduler interleave.
     */
    public static StressOptions stress() {
        return new StressOptions()
                .iterations(STRESS_ITERATIONS * SCALE)
                .invocationsPerIteration(STRESS_INVOCATIONS)
                .threads(THREADS)
                .actorsPerThread(ACTORS_PER_THREAD)
                .actorsBefore(2)
                .actorsAfter(2);
    }

    /**
     * Scenarios whose interleavings Lincheck chooses itself, switching threads between accesses to
     * the mapped file.
     */
    public static ModelCheckingOptions modelChecking() {
        return new ModelCheckingOptions()
                .iterations(MODEL_CHECKING_ITERATIONS * SCALE)
                .invocationsPerIteration(MODEL_CHECKING_INVOCATIONS)
                .threads(THREADS)
                .actorsPerThread(ACTORS_PER_THREAD)
                .actorsBefore(2)
                .actorsAfter(2)
                .addGuarantee(
                        ManagedStrategyGuaranteeKt.forClasses(AtomicBuffer.class.getName())
                                .allMethods()
                                .treatAsAtomic());
    }
}
