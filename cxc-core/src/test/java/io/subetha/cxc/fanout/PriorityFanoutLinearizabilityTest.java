package io.subetha.cxc.fanout;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.testing.Linearizability;
import io.subetha.cxc.testing.ProcessHandles;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * Submitting, draining, claiming and acknowledging are linearizable across handles on one file:
 * every concurrent history is one a set of bounded rings, one per level ({@link Model}), could
 * produce, with every take from the highest level that holds an item at the instant it takes
 * effect. A claimed item keeps its slot until it is acknowledged, so a level is full when the slot
 * its next item needs still holds the previous lap's item, taken or not. Takes are of one item: a
 * take of several is a run of single takes, not one atomic step. Each thread acknowledges only the
 * claims it made, oldest first, as a consumer process would; nobody dies or falls silent, so no
 * claim is returned. (Model checking found a drain beside {@code submit(1, 2)} then {@code
 * submit(0, 4)} returning {@code [4]} while 2 was queued, before takes below other levels reserved
 * their item: {@link FanoutTakeAcrossLevelsTest}.)
 */
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "priority", gen = IntGen.class, conf = "0:1")
@Param(name = "item", gen = IntGen.class, conf = "1:9")
public class PriorityFanoutLinearizabilityTest {

    private static final int CAPACITY = 2;
    private static final PriorityFanout.Settings SETTINGS =
            new PriorityFanout.Settings(CAPACITY, FixedCodec.INT64);

    private final ProcessHandles<PriorityFanout<Long>> fanouts =
            ProcessHandles.on(
                    "fanout",
                    path -> PriorityFanout.TYPE.create(path, SETTINGS),
                    path -> PriorityFanout.TYPE.open(path, SETTINGS));

    /** Each thread's unacknowledged claims, oldest first; only their own thread touches one. */
    private final Map<Integer, Deque<FanoutClaim<Long>>> claims = new ConcurrentHashMap<>();

    /** Whether the level had room. */
    @Operation
    public boolean submit(
            @Param(name = "thread") int thread,
            @Param(name = "priority") int priority,
            @Param(name = "item") int item) {
        return fanouts.of(thread).trySubmit(priority, (long) item);
    }

    @Operation
    public List<Long> drain(@Param(name = "thread") int thread) {
        return fanouts.of(thread).drainHighest(1);
    }

    @Operation
    public List<Long> claim(@Param(name = "thread") int thread) {
        FanoutClaim<Long> claim = fanouts.of(thread).claimHighest(1);
        if (!claim.isEmpty()) {
            claims.computeIfAbsent(thread, t -> new ArrayDeque<>()).addLast(claim);
        }
        return claim.items();
    }

    /** Whether this thread's oldest claim was acknowledged; false if it holds none. */
    @Operation
    public boolean ack(@Param(name = "thread") int thread) {
        Deque<FanoutClaim<Long>> mine = claims.get(thread);
        return mine != null && !mine.isEmpty() && mine.pollFirst().ack();
    }

    @Test
    void stress() {
        Linearizability.stress().sequentialSpecification(Model.class).check(getClass());
    }

    @Test
    void modelChecking() {
        Linearizability.modelChecking().sequentialSpecification(Model.class).check(getClass());
    }

    /** One ring of {@link #CAPACITY} slots per level. */
    public static final class Model {
        private static final int WAITING = 1;
        private static final int CLAIMED = 2;

        /** Per level, position to state: waiting or claimed; absent once freed. */
        private final List<Map<Long, Integer>> states = List.of(new HashMap<>(), new HashMap<>());

        private final List<Map<Long, Long>> items = List.of(new HashMap<>(), new HashMap<>());
        private final long[] heads = new long[2];
        private final long[] tails = new long[2];
        private final Map<Integer, Deque<long[]>> claims = new HashMap<>();

        public boolean submit(int thread, int priority, int item) {
            long tail = tails[priority];
            if (states.get(priority).containsKey(tail - CAPACITY)) {
                return false; // the slot still holds the previous lap's item
            }
            states.get(priority).put(tail, WAITING);
            items.get(priority).put(tail, (long) item);
            tails[priority]++;
            return true;
        }

        public List<Long> drain(int thread) {
            long[] taken = take();
            if (taken == null) {
                return List.of();
            }
            states.get((int) taken[0]).remove(taken[1]);
            return List.of(items.get((int) taken[0]).get(taken[1]));
        }

        public List<Long> claim(int thread) {
            long[] taken = take();
            if (taken == null) {
                return List.of();
            }
            states.get((int) taken[0]).put(taken[1], CLAIMED);
            claims.computeIfAbsent(thread, t -> new ArrayDeque<>()).addLast(taken);
            return List.of(items.get((int) taken[0]).get(taken[1]));
        }

        public boolean ack(int thread) {
            Deque<long[]> mine = claims.get(thread);
            if (mine == null || mine.isEmpty()) {
                return false;
            }
            long[] claimed = mine.pollFirst();
            states.get((int) claimed[0]).remove(claimed[1]);
            return true;
        }

        /** The head item of the highest non-empty level, as {level, position}; null if none. */
        private long[] take() {
            for (int priority = 1; priority >= 0; priority--) {
                if (heads[priority] < tails[priority]) {
                    return new long[] {priority, heads[priority]++};
                }
            }
            return null;
        }
    }
}
