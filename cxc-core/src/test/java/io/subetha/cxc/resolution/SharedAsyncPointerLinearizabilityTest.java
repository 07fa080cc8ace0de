package io.subetha.cxc.resolution;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.testing.Linearizability;
import io.subetha.cxc.testing.ProcessHandles;
import java.time.Duration;
import java.util.Optional;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * The once-cell's get-or-fetch, try-get, reset and resolved check are linearizable across handles
 * on one file: every concurrent history is one a single-threaded cell ({@link Model}) could
 * produce. Each caller's fetch answers its own value, so a caller handed another caller's value (or
 * none) tells whose fetch resolved the cell. The fetch and reset counters are statistics, bumped
 * beside the state word, and not part of the model.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "value", gen = IntGen.class, conf = "1:9")
public class SharedAsyncPointerLinearizabilityTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final SharedAsyncPointer.Settings SETTINGS =
            new SharedAsyncPointer.Settings(FixedCodec.INT64);

    private final ProcessHandles<SharedAsyncPointer<Long>> pointers =
            ProcessHandles.on(
                    "pointer",
                    path -> SharedAsyncPointer.TYPE.create(path, SETTINGS),
                    path -> SharedAsyncPointer.TYPE.open(path, SETTINGS));

    @Operation
    public long getOrFetch(@Param(name = "thread") int thread, @Param(name = "value") int value) {
        return pointers.of(thread).getOrFetch(() -> (long) value, WAIT);
    }

    @Operation
    public Optional<Long> tryGet(@Param(name = "thread") int thread) {
        return pointers.of(thread).tryGet();
    }

    @Operation
    public void reset(@Param(name = "thread") int thread) {
        pointers.of(thread).reset();
    }

    @Operation
    public boolean isResolved(@Param(name = "thread") int thread) {
        return pointers.of(thread).isResolved();
    }

    @Test
    void stress() {
        Linearizability.stress().sequentialSpecification(Model.class).check(getClass());
    }

    @Test
    void modelChecking() {
        Linearizability.modelChecking().sequentialSpecification(Model.class).check(getClass());
    }

    /** A cell, empty or resolved. */
    public static final class Model {
        private Long value;

        public long getOrFetch(int thread, int fetched) {
            if (value == null) {
                value = (long) fetched;
            }
            return value;
        }

        public Optional<Long> tryGet(int thread) {
            return Optional.ofNullable(value);
        }

        public void reset(int thread) {
            value = null;
        }

        public boolean isResolved(int thread) {
            return value != null;
        }
    }
}
