package io.subetha.cxc.liveness;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.testing.Linearizability;
import io.subetha.cxc.testing.ProcessHandles;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * Registering and unregistering heartbeat slots is linearizable across handles on one file: every
 * concurrent history is one a counter of held slots bounded by the capacity ({@link Model}) could
 * produce; in particular a registrant is told the table is full only if it was full at some instant
 * of its call. Which slot a registrant gets is not part of the model (any free one will do): each
 * thread keeps the slots it registered and unregisters its last one. Nobody ticks the epoch and
 * every owner is this (live) process, so no slot is ever reclaimable.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
public class HeartbeatTableLinearizabilityTest {

    private static final int CAPACITY = 2;
    private static final long PID = ProcessHandle.current().pid();
    private static final HeartbeatTable.Settings SETTINGS = new HeartbeatTable.Settings(CAPACITY);

    private final ProcessHandles<HeartbeatTable> tables =
            ProcessHandles.on(
                    "heartbeat",
                    path -> HeartbeatTable.TYPE.create(path, SETTINGS),
                    path -> HeartbeatTable.TYPE.open(path, SETTINGS));

    /** The slots each thread registered, by thread; only their own thread touches a deque. */
    private final Map<Integer, Deque<Integer>> slots = new ConcurrentHashMap<>();

    /** Whether a slot was registered; false if the table was full. */
    @Operation
    public boolean register(@Param(name = "thread") int thread) {
        try {
            int slot = tables.of(thread).register(PID);
            slots.computeIfAbsent(thread, t -> new ArrayDeque<>()).push(slot);
            return true;
        } catch (CxcCapacityException full) {
            return false;
        }
    }

    /** Whether this thread's last slot was unregistered; false if it holds none. */
    @Operation
    public boolean unregister(@Param(name = "thread") int thread) {
        Deque<Integer> mine = slots.get(thread);
        return mine != null && !mine.isEmpty() && tables.of(thread).unregister(mine.pop());
    }

    @Test
    void stress() {
        Linearizability.stress().sequentialSpecification(Model.class).check(getClass());
    }

    @Test
    void modelChecking() {
        Linearizability.modelChecking().sequentialSpecification(Model.class).check(getClass());
    }

    /** Slots held per thread, at most {@link #CAPACITY} in all. */
    public static final class Model {
        private final Map<Integer, Integer> held = new HashMap<>();
        private int total;

        public boolean register(int thread) {
            if (total == CAPACITY) {
                return false;
            }
            total++;
            held.merge(thread, 1, Integer::sum);
            return true;
        }

        public boolean unregister(int thread) {
            if (held.getOrDefault(thread, 0) == 0) {
                return false;
            }
            total--;
            held.merge(thread, -1, Integer::sum);
            return true;
        }
    }
}
