package io.subetha.cxc.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers of a vec take no lock while nothing they read is being written: a live writer holding the
 * lock (held at {@code INTENT_LOCKED}) never delays a {@code get} or a snapshot. A reader that does
 * fall back to the lock gives it back. A pop that finds the collection emptied by the dead writer's
 * step it replays on taking the lock answers empty. And a lock-free reader that meets an element
 * its codec refuses, under a sequence (or version) that did not move while it read, has read the
 * file as it is: the codec's error is thrown, never taken for a torn read and retried, never
 * swallowed (a vec of {@code string(8)} elements whose stored UTF-8 length is planted past its
 * limit).
 */
class LockFreeReadersTest {

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
            WriterStepsTest.killedAt(Point.INTENT_HALF_APPLIED, () -> vec.set(1, 21L));
            assertThat(vec.get(1)).isEqualTo(21L); // odd sequence: replayed under the lock
            assertThat(vec.writerPid()).isZero();
            WriterStepsTest.killedAt(Point.INTENT_HALF_APPLIED, () -> vec.set(0, 11L));
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
            WriterStepsTest.killedAt(Point.INTENT_SEALED, () -> vec.pop());
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
            WriterStepsTest.killedAt(Point.INTENT_SEALED, () -> list.popHead());
            assertThat(list.size()).as("sealed, not applied").isEqualTo(1);
            assertThat(list.popTail()).isEmpty();
            assertThat(list.size()).isZero();
            assertThat(list.checkIntegrity(new java.util.ArrayList<>())).isNull();
        }
    }

    private static final int ELEMENT = 8;
    private static final int ELEMENT_BYTES = 4 + ELEMENT;

    private SharedVec<String> vecWithACorruptSecondElement(Path path) {
        SharedVec<String> vec =
                SharedVec.TYPE.create(
                        path, new SharedVec.Settings<>(4, FixedCodec.string(ELEMENT)));
        vec.push("ab");
        vec.push("cd");
        AtomicBuffer raw = RawBody.of(path);
        int slot1 =
                SharedVecDescriptor.slotsOffset(ELEMENT_BYTES)
                        + SharedVecDescriptor.slotLength(ELEMENT_BYTES);
        raw.setIntVolatile(slot1 + SharedVecDescriptor.ELEMENT_OFFSET, 1000);
        return vec;
    }

    @Test
    void getThrowsTheCodecsErrorForAStableCorruptElement() {
        try (SharedVec<String> vec = vecWithACorruptSecondElement(dir.resolve("v.cxc"))) {
            assertThat(vec.get(0)).isEqualTo("ab");
            assertThatThrownBy(() -> vec.get(1)).isInstanceOf(CxcFormatException.class);
            assertThat(vec.writerPid()).as("no lock left held").isZero();
        }
    }

    @Test
    void aSnapshotThrowsTheCodecsErrorForAStableCorruptElement() {
        try (SharedVec<String> vec = vecWithACorruptSecondElement(dir.resolve("v.cxc"))) {
            assertThatThrownBy(vec::cloneToList).isInstanceOf(CxcFormatException.class);
            assertThat(vec.writerPid()).isZero();
            // A pop reads the element under the lock: refused too, and nothing removed.
            assertThatThrownBy(vec::pop).isInstanceOf(CxcFormatException.class);
            assertThat(vec.len()).isEqualTo(2);
            assertThat(vec.writerPid()).isZero();
        }
    }
}
