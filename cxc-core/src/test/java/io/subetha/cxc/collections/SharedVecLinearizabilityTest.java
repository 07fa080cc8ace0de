package io.subetha.cxc.collections;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.testing.Linearizability;
import io.subetha.cxc.testing.ProcessHandles;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * A vec's push, pop, get, set, len and snapshot are linearizable across handles on one file: every
 * concurrent history is one a bounded {@link ArrayList} ({@link Model}) could produce. The capacity
 * is small so that full and empty both happen.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "value", gen = IntGen.class, conf = "1:9")
@Param(name = "index", gen = IntGen.class, conf = "0:3")
public class SharedVecLinearizabilityTest {

    private static final int CAPACITY = 3;
    private static final SharedVec.Settings SETTINGS =
            new SharedVec.Settings(CAPACITY, FixedCodec.INT64);

    private final ProcessHandles<SharedVec<Long>> vecs =
            ProcessHandles.on(
                    "vec",
                    path -> SharedVec.TYPE.create(path, SETTINGS),
                    path -> SharedVec.TYPE.open(path, SETTINGS));

    /** The new element's index, or -1 if the vec was full. */
    @Operation
    public long push(@Param(name = "thread") int thread, @Param(name = "value") int value) {
        try {
            return vecs.of(thread).push((long) value);
        } catch (CxcCapacityException full) {
            return -1;
        }
    }

    @Operation
    public Optional<Long> pop(@Param(name = "thread") int thread) {
        return vecs.of(thread).pop();
    }

    /** The element, or -1 if the index is past the end. */
    @Operation
    public long get(@Param(name = "thread") int thread, @Param(name = "index") int index) {
        try {
            return vecs.of(thread).get(index);
        } catch (IndexOutOfBoundsException past) {
            return -1;
        }
    }

    /** Whether the index was below the length. */
    @Operation
    public boolean set(
            @Param(name = "thread") int thread,
            @Param(name = "index") int index,
            @Param(name = "value") int value) {
        try {
            vecs.of(thread).set(index, (long) value);
            return true;
        } catch (IndexOutOfBoundsException past) {
            return false;
        }
    }

    @Operation
    public long len(@Param(name = "thread") int thread) {
        return vecs.of(thread).len();
    }

    @Operation
    public List<Long> cloneToList(@Param(name = "thread") int thread) {
        return vecs.of(thread).cloneToList();
    }

    @Test
    void stress() {
        Linearizability.stress().sequentialSpecification(Model.class).check(getClass());
    }

    @Test
    void modelChecking() {
        Linearizability.modelChecking().sequentialSpecification(Model.class).check(getClass());
    }

    /** A bounded list. */
    public static final class Model {
        private final List<Long> elements = new ArrayList<>();

        public long push(int thread, int value) {
            if (elements.size() == CAPACITY) {
                return -1;
            }
            elements.add((long) value);
            return elements.size() - 1;
        }

        public Optional<Long> pop(int thread) {
            return elements.isEmpty()
                    ? Optional.empty()
                    : Optional.of(elements.remove(elements.size() - 1));
        }

        public long get(int thread, int index) {
            return index < elements.size() ? elements.get(index) : -1;
        }

        public boolean set(int thread, int index, int value) {
            if (index >= elements.size()) {
                return false;
            }
            elements.set(index, (long) value);
            return true;
        }

        public long len(int thread) {
            return elements.size();
        }

        public List<Long> cloneToList(int thread) {
            return new ArrayList<>(elements);
        }
    }
}
