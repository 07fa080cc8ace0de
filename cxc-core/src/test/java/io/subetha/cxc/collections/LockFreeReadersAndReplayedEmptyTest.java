package io.subetha.cxc.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers of a vec take no lock while nothing they read is being written: a live writer holding the
 * lock (held at {@code INTENT_LOCKED}) never delays a {@code get} or a snapshot. A reader that does
 * fall back to the lock gives it back. And a pop that finds the collection emptied by the dead
 * writer's step it replays on taking the lock answers empty.
 */
class LockFreeReadersAndReplayedEmptyTest {

    @TempDir Path dir;

    @Test
    void aLiveWriterHoldingTheLockNeverDelaysAReader() throws Exception {
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(
                        dir.resolve("v.cxc"), new SharedVec.Settings<>(4, FixedCodec.INT64))) {
            vec.push(10L);
            vec.push(20L);
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Long> writer;
            try (Interleaving.Installed hold =
                    Interleaving.install(
                            p -> {
                                if (p == Point.INTENT_LOCKED
                                        && Thread.currentThread().getName().equals("writer")) {
                                    locked.countDown();
                                    try {
                                        release.await(60, TimeUnit.SECONDS);
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                }
                            })) {
                writer = new CompletableFuture<>();
                Thread t =
                        new Thread(
                                () -> {
                                    try {
                                        writer.complete(vec.push(30L));
                                    } catch (Throwable e) {
                                        writer.completeExceptionally(e);
                                    }
                                },
                                "writer");
                t.start();
                try {
                    assertThat(locked.await(60, TimeUnit.SECONDS)).isTrue();
                    assertThat(vec.writerPid()).isEqualTo(Pids.current());
                    // Each would wait for the lock (10 s, then time out) if it took it.
                    assertThat(vec.get(0)).isEqualTo(10L);
                    assertThat(vec.get(1)).isEqualTo(20L);
                    assertThat(vec.cloneToList()).containsExactly(10L, 20L);
                    assertThat(vec.len()).isEqualTo(2);
                    assertThatThrownBy(() -> vec.get(2))
                            .isInstanceOf(IndexOutOfBoundsException.class)
                            .hasMessage("index 2 is outside 0..1 (len 2)");
                } finally {
                    release.countDown();
                    t.join(60_000);
                }
            }
            assertThat(writer.get(60, TimeUnit.SECONDS)).isEqualTo(2);
            assertThat(vec.cloneToList()).containsExactly(10L, 20L, 30L);
        }
    }

    @Test
    void aReaderThatFellBackToTheLockGivesItBack() {
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(
                        dir.resolve("v.cxc"), new SharedVec.Settings<>(4, FixedCodec.INT64))) {
            vec.push(10L);
            vec.push(20L);
            KilledWriterStepTest.killedAt(Point.INTENT_HALF_APPLIED, () -> vec.set(1, 21L));
            assertThat(vec.get(1)).isEqualTo(21L); // odd sequence: replayed under the lock
            assertThat(vec.writerPid()).isZero();
            KilledWriterStepTest.killedAt(Point.INTENT_HALF_APPLIED, () -> vec.set(0, 11L));
            assertThat(vec.cloneToList()).containsExactly(11L, 21L); // odd version: the lock
            assertThat(vec.writerPid()).isZero();
        }
    }

    @Test
    void aVecPopThatReplaysTheLastElementsRemovalAnswersEmpty() {
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(
                        dir.resolve("v.cxc"), new SharedVec.Settings<>(4, FixedCodec.INT64))) {
            vec.push(10L);
            KilledWriterStepTest.killedAt(Point.INTENT_SEALED, () -> vec.pop());
            assertThat(vec.len()).as("sealed, not applied").isEqualTo(1);
            assertThat(vec.pop()).isEmpty();
            assertThat(vec.len()).isZero();
            assertThat(vec.push(11L)).isZero();
            assertThat(vec.cloneToList()).containsExactly(11L);
        }
    }

    @Test
    void aListPopThatReplaysTheLastElementsRemovalAnswersEmpty() {
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        dir.resolve("l.cxc"),
                        new SharedLinkedList.Settings<>(4, FixedCodec.INT64))) {
            list.pushTail(10L);
            KilledWriterStepTest.killedAt(Point.INTENT_SEALED, () -> list.popHead());
            assertThat(list.size()).as("sealed, not applied").isEqualTo(1);
            assertThat(list.popTail()).isEmpty();
            assertThat(list.size()).isZero();
            assertThat(list.checkIntegrity(new java.util.ArrayList<>())).isNull();
        }
    }
}
