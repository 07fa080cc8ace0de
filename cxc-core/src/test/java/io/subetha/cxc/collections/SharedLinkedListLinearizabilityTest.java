package io.subetha.cxc.collections;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.testing.Linearizability;
import io.subetha.cxc.testing.ProcessHandles;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * A linked list's pushes and pops at both ends and its size are linearizable across handles on one
 * file: every concurrent history is one a bounded {@link ArrayDeque} ({@link Model}) could produce.
 * The capacity is small so that full and empty both happen.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "value", gen = IntGen.class, conf = "1:9")
public class SharedLinkedListLinearizabilityTest {

    private static final int CAPACITY = 3;
    private static final SharedLinkedList.Settings SETTINGS =
            new SharedLinkedList.Settings(CAPACITY, FixedCodec.INT64);

    private final ProcessHandles<SharedLinkedList<Long>> lists =
            ProcessHandles.on(
                    "list",
                    path -> SharedLinkedList.TYPE.create(path, SETTINGS),
                    path -> SharedLinkedList.TYPE.open(path, SETTINGS));

    /** Whether the list had room. */
    @Operation
    public boolean pushHead(@Param(name = "thread") int thread, @Param(name = "value") int value) {
        try {
            lists.of(thread).pushHead((long) value);
            return true;
        } catch (CxcCapacityException full) {
            return false;
        }
    }

    /** Whether the list had room. */
    @Operation
    public boolean pushTail(@Param(name = "thread") int thread, @Param(name = "value") int value) {
        try {
            lists.of(thread).pushTail((long) value);
            return true;
        } catch (CxcCapacityException full) {
            return false;
        }
    }

    @Operation
    public Optional<Long> popHead(@Param(name = "thread") int thread) {
        return lists.of(thread).popHead();
    }

    @Operation
    public Optional<Long> popTail(@Param(name = "thread") int thread) {
        return lists.of(thread).popTail();
    }

    @Operation
    public long size(@Param(name = "thread") int thread) {
        return lists.of(thread).size();
    }

    @Test
    void stress() {
        Linearizability.stress().sequentialSpecification(Model.class).check(getClass());
    }

    @Test
    void modelChecking() {
        Linearizability.modelChecking().sequentialSpecification(Model.class).check(getClass());
    }

    /** A bounded deque. */
    public static final class Model {
        private final Deque<Long> elements = new ArrayDeque<>();

        public boolean pushHead(int thread, int value) {
            return elements.size() < CAPACITY && elements.offerFirst((long) value);
        }

        public boolean pushTail(int thread, int value) {
            return elements.size() < CAPACITY && elements.offerLast((long) value);
        }

        public Optional<Long> popHead(int thread) {
            return Optional.ofNullable(elements.pollFirst());
        }

        public Optional<Long> popTail(int thread) {
            return Optional.ofNullable(elements.pollLast());
        }

        public long size(int thread) {
            return elements.size();
        }
    }
}
