package io.subetha.cxc.collections;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collections across real JVMs on one file: concurrent writers against a sequential model, and
 * writers SIGKILLed mid-step (at random points of a hot loop, and parked at each step of the intent
 * lock) whose half-done step the survivor repairs.
 *
 * <p>{@code -Dcxc.collections.kills=N} kills N writers per structure (default 4: one at a random
 * point and one at each of the three intent points; the extra ones at random points).
 */
class CollectionsProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final int KILLS = Integer.getInteger("cxc.collections.kills", 4);

    /** Rounds a writer runs at most; the structures hold this many plus two. */
    static final int ROUNDS = 1 << 18;

    static final List<Point> PARK_POINTS =
            List.of(Point.INTENT_STAGED, Point.INTENT_SEALED, Point.INTENT_APPLIED);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    ChildJvm child(String name, String... setup) {
        ChildJvm child =
                children.add(
                        ChildJvm.start(name, CollectionsChild.class)
                                .eventsAre(line -> line.equals("running")));
        for (String command : setup) {
            child.ask(command);
        }
        return child;
    }

    static List<Long> longs(String csv) {
        return csv.isEmpty()
                ? List.of()
                : Arrays.stream(csv.split(",")).map(Long::valueOf).toList();
    }

    // ------------------------------------------------------------------------------- vec

    @Test
    void twoJvmsPushAndPopConcurrentlyAndTheVecEqualsTheSequentialStack() {
        Path path = dir.resolve("vec.cxc");
        int each = 1500;
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(path, new SharedVec.Settings<>(2 * each, FixedCodec.INT64))) {
            ChildJvm other = child("vec-writer", "vec-open " + path + " " + 2 * each);
            other.send("vec-push-each 1000000 " + each);
            Map<Long, Long> byIndex = new TreeMap<>();
            for (long v = 0; v < each; v++) {
                byIndex.put(vec.push(v), v);
            }
            List<Long> theirs = longs(other.awaitPrefixed("indices ", STEP));
            for (int i = 0; i < each; i++) {
                assertThat(byIndex.put(theirs.get(i), 1_000_000L + i))
                        .as("index %d given twice", theirs.get(i))
                        .isNull();
            }
            // Every index 0..2n-1 exactly once, each holding the value its push returned it for.
            assertThat(byIndex.keySet()).hasSize(2 * each);
            assertThat(byIndex.keySet()).allMatch(i -> i >= 0 && i < 2L * each);
            List<Long> model = new ArrayList<>(byIndex.values());
            assertThat(vec.cloneToList()).isEqualTo(model);

            other.send("vec-pop 1000");
            Set<Long> popped = new HashSet<>();
            for (int i = 0; i < 1000; i++) {
                popped.add(vec.pop().orElseThrow());
            }
            List<Long> theirPops = longs(other.awaitPrefixed("popped ", STEP));
            assertThat(theirPops).hasSize(1000);
            assertThat(popped).doesNotContainAnyElementsOf(theirPops);
            popped.addAll(theirPops);
            // A stack: the 2000 pops took exactly the last 2000 elements pushed.
            assertThat(popped).isEqualTo(new HashSet<>(model.subList(2 * each - 2000, 2 * each)));
            assertThat(vec.cloneToList()).isEqualTo(model.subList(0, 2 * each - 2000));
        }
    }

    @Test
    void aWriterKilledMidPushOrPopLeavesEachElementInOrOutAndTheSurvivorRepairsIt() {
        Path path = dir.resolve("vec.cxc");
        Random random = new Random();
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(
                        path, new SharedVec.Settings<>(ROUNDS + 2, FixedCodec.INT64))) {
            long nextRound = 0;
            for (int kill = 0; kill < KILLS; kill++) {
                Point park =
                        kill > 0 && kill <= PARK_POINTS.size() ? PARK_POINTS.get(kill - 1) : null;
                long repairsBefore = vec.describe().get("repairedWrites") instanceof Long l ? l : 0;
                ChildJvm writer =
                        child("vec-writer-" + kill, "vec-open " + path + " " + (ROUNDS + 2));
                if (park != null) {
                    writer.ask("park-at " + park + " " + (1 + random.nextInt(300)));
                }
                // Bounded so the vec never fills (each round leaves one element): a fast writer may
                // finish before the kill, which then finds a finished script.
                writer.send("vec-rounds " + nextRound + " " + ROUNDS);
                writer.awaitLine("running"::equals, STEP);
                if (park != null) {
                    writer.awaitLine(("parked " + park)::equals, STEP);
                } else {
                    // A random point of the hot loop (not a synchronisation: any moment will do).
                    LockSupport.parkNanos(Duration.ofMillis(20 + random.nextInt(200)).toNanos());
                }
                writer.kill();

                // The survivor's first write takes the dead writer's lock over and replays its
                // sealed step, if any (a reader before it may still see the vec without that step).
                vec.push(-1L);
                assertThat(vec.pop()).contains(-1L);
                List<Long> content = vec.cloneToList();
                long m =
                        checkEvensThenMaybeOdd(
                                content, nextRound, "after kill " + kill + " " + park);
                // Drained, so the next writer starts on an empty vec (and the capacity is never
                // hit).
                for (int i = content.size() - 1; i >= 0; i--) {
                    assertThat(vec.pop()).contains(content.get(i));
                }
                long repairs = (Long) vec.describe().get("repairedWrites");
                if (park == Point.INTENT_SEALED || park == Point.INTENT_APPLIED) {
                    assertThat(repairs).as("replayed the sealed step").isEqualTo(repairsBefore + 1);
                } else if (park == Point.INTENT_STAGED) {
                    assertThat(repairs).as("an unsealed step is void").isEqualTo(repairsBefore);
                }
                assertThat(vec.writerPid()).isZero();
                nextRound = m + 1;
            }
            assertThat(nextRound).as("the writers made progress").isGreaterThan(KILLS);
        }
    }

    /** [2f, 2f + 2, ..., 2m] optionally followed by 2m + 1; returns m (f - 1 if empty). */
    static long checkEvensThenMaybeOdd(List<Long> content, long from, String when) {
        boolean odd = !content.isEmpty() && content.get(content.size() - 1) % 2 == 1;
        int evens = odd ? content.size() - 1 : content.size();
        for (int i = 0; i < evens; i++) {
            assertThat(content.get(i))
                    .as("%s: element %d of %s", when, i, content.size())
                    .isEqualTo(2L * (from + i));
        }
        long m = from + evens - 1;
        if (odd) {
            assertThat(content.get(evens)).as(when).isEqualTo(2 * m + 1);
        }
        return m;
    }

    // ------------------------------------------------------------------------------ list

    @Test
    void twoJvmsPushAtBothEndsAndPopConcurrentlyLosingAndDuplicatingNothing() {
        Path path = dir.resolve("list.cxc");
        int each = 1500;
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        path, new SharedLinkedList.Settings<>(2 * each, FixedCodec.INT64))) {
            ChildJvm other = child("list-writer", "list-open " + path + " " + 2 * each);
            other.send("list-push-each 1000000 " + each + " HEAD");
            for (long v = 0; v < each; v++) {
                list.pushTail(v);
            }
            other.awaitLine("ok"::equals, STEP);
            List<Long> content = new ArrayList<>();
            assertThat(list.checkIntegrity(content)).isNull();
            // Sequential model: their head pushes in reverse order before ours in order, whatever
            // the interleaving, since each side pushes at its own end.
            List<Long> model = new ArrayList<>();
            for (long v = each - 1; v >= 0; v--) {
                model.add(1_000_000L + v);
            }
            for (long v = 0; v < each; v++) {
                model.add(v);
            }
            assertThat(content).isEqualTo(model);

            other.send("list-pop 1000 HEAD");
            List<Long> ours = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                ours.add(list.popTail().orElseThrow());
            }
            List<Long> theirs = longs(other.awaitPrefixed("popped ", STEP));
            assertThat(theirs).isEqualTo(model.subList(0, 1000));
            List<Long> tail = new ArrayList<>(model.subList(2 * each - 1000, 2 * each));
            java.util.Collections.reverse(tail);
            assertThat(ours).isEqualTo(tail);
            content.clear();
            assertThat(list.checkIntegrity(content)).isNull();
            assertThat(content).isEqualTo(model.subList(1000, 2 * each - 1000));
            assertThat(list.size()).isEqualTo(2 * each - 2000);
        }
    }

    @Test
    void aListWriterKilledMidPushOrPopLeavesEveryNodeOnExactlyOneChain() {
        Path path = dir.resolve("list.cxc");
        Random random = new Random();
        int capacity = ROUNDS + 2;
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        path, new SharedLinkedList.Settings<>(capacity, FixedCodec.INT64))) {
            long nextRound = 0;
            for (int kill = 0; kill < KILLS; kill++) {
                Point park =
                        kill > 0 && kill <= PARK_POINTS.size() ? PARK_POINTS.get(kill - 1) : null;
                ChildJvm writer =
                        child("list-writer-" + kill, "list-open " + path + " " + capacity);
                if (park != null) {
                    writer.ask("park-at " + park + " " + (1 + random.nextInt(500)));
                }
                writer.send("list-rounds " + nextRound + " " + ROUNDS);
                writer.awaitLine("running"::equals, STEP);
                if (park != null) {
                    writer.awaitLine(("parked " + park)::equals, STEP);
                } else {
                    LockSupport.parkNanos(Duration.ofMillis(20 + random.nextInt(200)).toNanos());
                }
                writer.kill();

                List<Long> content = new ArrayList<>();
                String when = "after kill " + kill + " at " + park;
                assertThat(list.checkIntegrity(content)).as(when).isNull();
                // [3m+1]? 0, 3, ..., 3m [3m+2]?  (round r: pushTail 3r, pushHead 3r+1, popHead,
                // pushTail 3r+2, popTail)
                boolean head = !content.isEmpty() && content.get(0) % 3 == 1;
                boolean tail =
                        content.size() > (head ? 1 : 0) && content.get(content.size() - 1) % 3 == 2;
                List<Long> middle =
                        List.copyOf(content.subList(head ? 1 : 0, content.size() - (tail ? 1 : 0)));
                for (int i = 0; i < middle.size(); i++) {
                    assertThat(middle.get(i))
                            .as("%s: %s", when, content)
                            .isEqualTo(3L * (nextRound + i));
                }
                long m = nextRound + middle.size() - 1;
                if (head) {
                    assertThat(list.popHead()).as(when).contains(3 * m + 1);
                }
                if (tail) {
                    assertThat(list.popTail()).as(when).contains(3 * m + 2);
                }
                assertThat(list.writerPid()).isZero();
                assertThat(list.size()).isEqualTo(middle.size());
                for (Long v : middle) {
                    assertThat(list.popHead()).as(when).contains(v); // drained for the next writer
                }
                nextRound = m + 1;
            }
            assertThat(nextRound).as("the writers made progress").isGreaterThan(KILLS);
            assertThat(list.popHead()).isEmpty();
        }
    }
}
