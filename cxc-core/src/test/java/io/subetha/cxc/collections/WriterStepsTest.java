package io.subetha.cxc.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer's steps under the intent lock. The words lock-free readers trust, read raw from the
 * file: every finished write leaves the collection's version, and a vec slot's sequence, even and
 * two higher than before; while a step is being applied (halfway, as a reader racing it or a kill
 * there would find it) the version is odd, and so is the sequence of the vec slot being written.
 * And a writer stopped dead at each step of its commit (an error thrown at the step, as a SIGKILL
 * there would stop it; the file is left as the killed writer left it): before the seal the step
 * never happened, after it the next lock holder (a writer, or a reader that falls back to the lock)
 * finishes it exactly once.
 */
class WriterStepsTest {

    @TempDir Path dir;

    private static final int CAPACITY = 4;

    /** The raw words {@code words} reads at each intent-lock point {@code step} passes. */
    private static Map<Point, long[]> wordsAtEachPoint(Runnable step, WordReader words) {
        Map<Point, long[]> seen = new EnumMap<>(Point.class);
        try (Interleaving.Installed spy =
                Interleaving.install(p -> seen.putIfAbsent(p, words.read()))) {
            step.run();
        }
        return seen;
    }

    @FunctionalInterface
    interface WordReader {
        long[] read();
    }

    private static int vecSlot(int index) {
        return SharedVecDescriptor.slotsOffset(8) + index * SharedVecDescriptor.slotLength(8);
    }

    static final class Killed extends Error {
        Killed() {
            super("killed at the step", null, false, false);
        }
    }

    /** Runs {@code step}, stopped the first time it reaches {@code at}. */
    static void killedAt(Point at, Runnable step) {
        AtomicBoolean fired = new AtomicBoolean();
        try (Interleaving.Installed kill =
                Interleaving.install(
                        p -> {
                            if (p == at && fired.compareAndSet(false, true)) {
                                throw new Killed();
                            }
                        })) {
            assertThatThrownBy(step::run).isInstanceOf(Killed.class);
        }
        assertThat(fired).isTrue();
    }

    SharedVec<Long> vec() {
        return SharedVec.TYPE.create(
                dir.resolve("v.cxc"), new SharedVec.Settings<>(4, FixedCodec.INT64));
    }

    @Test
    void aPushKilledBeforeItsSealNeverHappened() {
        try (SharedVec<Long> vec = vec()) {
            vec.push(1L);
            killedAt(Point.INTENT_STAGED, () -> vec.push(2L));
            assertThat(vec.len()).isEqualTo(1);
            assertThat(vec.push(3L)).isEqualTo(1);
            assertThat(vec.cloneToList()).containsExactly(1L, 3L);
            assertThat(vec.describe()).containsEntry("repairedWrites", 0L);
        }
    }

    @Test
    void aPushKilledAfterItsSealIsFinishedByTheNextWriter() {
        try (SharedVec<Long> vec = vec()) {
            vec.push(1L);
            killedAt(Point.INTENT_SEALED, () -> vec.push(2L));
            assertThat(vec.len()).isEqualTo(1); // sealed, not applied yet
            assertThat(vec.push(3L)).isEqualTo(2);
            assertThat(vec.cloneToList()).containsExactly(1L, 2L, 3L);
            assertThat(vec.get(1)).isEqualTo(2L);
            assertThat(vec.describe()).containsEntry("repairedWrites", 1L);
        }
    }

    @Test
    void aPopKilledAfterItsSealIsFinishedByTheNextWriter() {
        try (SharedVec<Long> vec = vec()) {
            vec.push(1L);
            vec.push(2L);
            killedAt(Point.INTENT_SEALED, () -> vec.pop());
            assertThat(vec.pop()).contains(1L);
            assertThat(vec.len()).isZero();
            assertThat(vec.pop()).isEmpty();
        }
    }

    @Test
    void aSetKilledHalfWayThroughItsCopyIsFinishedByAReaderFallingBackToTheLock() {
        try (SharedVec<Long> vec = vec()) {
            vec.push(10L);
            vec.push(20L);
            // Version and sequence made odd, the new element not copied yet.
            killedAt(Point.INTENT_HALF_APPLIED, () -> vec.set(1, 21L));
            assertThat(vec.get(1)).isEqualTo(21L);
            assertThat(vec.get(0)).isEqualTo(10L);
            assertThat(vec.cloneToList()).containsExactly(10L, 21L);
            assertThat(vec.describe()).containsEntry("repairedWrites", 1L);
        }
    }

    @Test
    void aSnapshotDuringAKilledSetFallsBackToTheLockAndSeesTheStepWhole() {
        try (SharedVec<Long> vec = vec()) {
            vec.push(10L);
            vec.push(20L);
            killedAt(Point.INTENT_HALF_APPLIED, () -> vec.set(0, 11L));
            assertThat(vec.cloneToList()).containsExactly(11L, 20L);
            assertThat(vec.get(0)).isEqualTo(11L);
        }
    }

    @Test
    void aListPushKilledAfterItsSealIsFinishedAndOneBeforeItNeverHappened() {
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        dir.resolve("l.cxc"),
                        new SharedLinkedList.Settings<>(4, FixedCodec.INT64))) {
            list.pushTail(1L);
            killedAt(Point.INTENT_STAGED, () -> list.pushHead(0L));
            assertThat(list.size()).isEqualTo(1);
            killedAt(Point.INTENT_HALF_APPLIED, () -> list.pushTail(2L));
            list.pushHead(-1L);
            List<Long> content = new ArrayList<>();
            assertThat(list.checkIntegrity(content)).isNull();
            assertThat(content).containsExactly(-1L, 1L, 2L);
            killedAt(Point.INTENT_SEALED, () -> list.popHead());
            assertThat(list.popTail()).contains(2L);
            content.clear();
            assertThat(list.checkIntegrity(content)).isNull();
            assertThat(content).containsExactly(1L);
            assertThat(list.size()).isEqualTo(1);
        }
    }

    @Test
    void eachVecWriteLeavesTheVersionAndItsSlotsSequenceEvenAndTwoHigher() {
        Path path = dir.resolve("v.cxc");
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(path, new SharedVec.Settings<>(CAPACITY, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            WordReader versionAndSlots =
                    () ->
                            new long[] {
                                raw.getLongVolatile(SharedVecDescriptor.VERSION_OFFSET),
                                raw.getLongVolatile(vecSlot(0)),
                                raw.getLongVolatile(vecSlot(1))
                            };
            assertThat(versionAndSlots.read()).containsExactly(0, 0, 0);

            vec.push(10L);
            assertThat(versionAndSlots.read()).containsExactly(2, 2, 0);
            vec.push(20L);
            assertThat(versionAndSlots.read()).containsExactly(4, 2, 2);
            vec.set(0, 11L);
            assertThat(versionAndSlots.read()).containsExactly(6, 4, 2);
            vec.set(0, 12L);
            assertThat(versionAndSlots.read()).containsExactly(8, 6, 2);
            assertThat(vec.pop()).contains(20L);
            assertThat(versionAndSlots.read()).containsExactly(10, 6, 2);
            vec.push(21L);
            assertThat(versionAndSlots.read()).containsExactly(12, 6, 4);
            assertThat(vec.cloneToList()).containsExactly(12L, 21L);
        }
    }

    @Test
    void aVecStepBeingAppliedShowsAnOddVersionAndAPushedSlotOddUntilItsSeal() {
        Path path = dir.resolve("v.cxc");
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(path, new SharedVec.Settings<>(CAPACITY, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            WordReader words =
                    () ->
                            new long[] {
                                raw.getLongVolatile(SharedVecDescriptor.VERSION_OFFSET),
                                raw.getLongVolatile(vecSlot(0)),
                                raw.getLongVolatile(SharedVecDescriptor.LENGTH_OFFSET)
                            };

            Map<Point, long[]> push = wordsAtEachPoint(() -> vec.push(10L), words);
            // The element is written under an odd sequence beyond the length, before the seal.
            assertThat(push.get(Point.INTENT_STAGED)).containsExactly(0, 1, 0);
            assertThat(push.get(Point.INTENT_SEALED)).containsExactly(0, 1, 0);
            // Half of {version odd, sequence even, length + 1, version even} applied.
            assertThat(push.get(Point.INTENT_HALF_APPLIED)).containsExactly(1, 2, 0);
            assertThat(push.get(Point.INTENT_APPLIED)).containsExactly(2, 2, 1);

            Map<Point, long[]> set = wordsAtEachPoint(() -> vec.set(0, 11L), words);
            // Half of {version odd, sequence odd, copy, sequence even, version even} applied.
            assertThat(set.get(Point.INTENT_SEALED)).containsExactly(2, 2, 1);
            assertThat(set.get(Point.INTENT_HALF_APPLIED)).containsExactly(3, 3, 1);
            assertThat(set.get(Point.INTENT_APPLIED)).containsExactly(4, 4, 1);

            Map<Point, long[]> pop = wordsAtEachPoint(() -> vec.pop(), words);
            // Half of {version odd, length - 1, version even} applied.
            assertThat(pop.get(Point.INTENT_HALF_APPLIED)).containsExactly(5, 4, 1);
            assertThat(pop.get(Point.INTENT_APPLIED)).containsExactly(6, 4, 0);
        }
    }

    @Test
    void eachListWriteLeavesTheVersionEvenAndTwoHigherAndOddWhileApplied() {
        Path path = dir.resolve("l.cxc");
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        path, new SharedLinkedList.Settings<>(CAPACITY, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            WordReader version =
                    () ->
                            new long[] {
                                raw.getLongVolatile(SharedLinkedListDescriptor.VERSION_OFFSET)
                            };
            assertThat(version.read()).containsExactly(0);

            Map<Point, long[]> pushTail = wordsAtEachPoint(() -> list.pushTail(1L), version);
            assertThat(pushTail.get(Point.INTENT_SEALED)).containsExactly(0);
            assertThat(pushTail.get(Point.INTENT_HALF_APPLIED)).containsExactly(1);
            assertThat(version.read()).containsExactly(2);

            Map<Point, long[]> pushHead = wordsAtEachPoint(() -> list.pushHead(0L), version);
            assertThat(pushHead.get(Point.INTENT_HALF_APPLIED)).containsExactly(3);
            assertThat(version.read()).containsExactly(4);

            Map<Point, long[]> popHead = wordsAtEachPoint(() -> list.popHead(), version);
            assertThat(popHead.get(Point.INTENT_HALF_APPLIED)).containsExactly(5);
            assertThat(version.read()).containsExactly(6);

            Map<Point, long[]> popTail = wordsAtEachPoint(() -> list.popTail(), version);
            assertThat(popTail.get(Point.INTENT_HALF_APPLIED)).containsExactly(7);
            assertThat(version.read()).containsExactly(8);
            assertThat(list.size()).isZero();
        }
    }
}
