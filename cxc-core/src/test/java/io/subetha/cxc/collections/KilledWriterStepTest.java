package io.subetha.cxc.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer stopped dead at each step of its commit (an error thrown at the step, as a SIGKILL there
 * would stop it; the file is left as the killed writer left it): before the seal the step never
 * happened, after it the next lock holder (a writer, or a reader that falls back to the lock)
 * finishes it exactly once.
 */
class KilledWriterStepTest {

    @TempDir Path dir;

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
}
