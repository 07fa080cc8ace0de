package io.subetha.cxc.versioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live holder of a slot is waited for, never displaced: a push to a slot a live pusher of an
 * earlier lap holds, and a record or a read of a point a live recorder holds, park until the holder
 * frees it (planted: this process's PID in the owner word), then go on with the freed slot. Each
 * wait is seen parked before the slot is freed.
 */
class LiveHolderWaitTest {

    static final int STRIDE = SharedVersionedChainDescriptor.strideFor(8);

    @TempDir Path dir;

    /** Runs {@code action} on its own thread and returns once that thread is parked. */
    static <T> CompletableFuture<T> parked(Supplier<T> action) {
        AtomicReference<Thread> thread = new AtomicReference<>();
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t =
                new Thread(
                        () -> {
                            try {
                                result.complete(action.get());
                            } catch (Throwable e) {
                                result.completeExceptionally(e);
                            }
                        },
                        "waits-for-live-holder");
        t.setDaemon(true);
        thread.set(t);
        t.start();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> result.isDone() || t.getState() == Thread.State.TIMED_WAITING);
        assertThat(result).as("gave up or went on while the holder was live").isNotDone();
        return result;
    }

    @Test
    void aPushToASlotALivePusherHoldsWaitsForItsRelease() throws Exception {
        Path path = dir.resolve("c.cxc");
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        path, new SharedVersionedChain.Settings<>(2, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            assertThat(chain.push(10L)).isEqualTo(1);
            int slot = SharedVersionedChainDescriptor.slotOffset(3, 2, STRIDE);
            // Version 1's pusher, alive, still holds the slot version 3 needs.
            long held = OwnerRecord.ownerWord(Pids.current(), 9);
            raw.setLongVolatile(slot + OwnerRecord.OWNER_WORD_OFFSET, held);
            assertThat(chain.push(20L)).isEqualTo(2);

            CompletableFuture<Long> third = parked(() -> chain.push(30L));
            assertThat(chain.lookup(3).status()).isEqualTo(VersionRead.Status.NOT_WRITTEN);
            raw.setLongVolatile(slot + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.freed(held));

            assertThat(third.get(60, TimeUnit.SECONDS)).isEqualTo(3);
            assertThat(chain.readAt(3)).contains(30L);
            long after = OwnerRecord.ownerWord(raw, slot);
            assertThat(after).isEqualTo(OwnerRecord.ownerWord(0, 2)); // lap key of 3 over 2: 2
            assertThat(OwnerRecord.heartbeat(raw, slot)).isEqualTo(3); // the claim's heartbeat
            assertThat(chain.opCounts()).containsEntry("push", 3L);
        }
    }

    @Test
    void aRecordAndAReadOfAPointALiveRecorderHoldsWaitForItsRelease() throws Exception {
        Path path = dir.resolve("t.cxc");
        try (SharedTimePointTile<Long> tile =
                SharedTimePointTile.TYPE.create(
                        path, new SharedTimePointTile.Settings<>(0, 10, 2, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            tile.record(10, 1L);
            int slot = SharedTimePointTileDescriptor.slotOffset(1, STRIDE);
            long freed = OwnerRecord.ownerWord(raw, slot);
            // A live recorder claimed the point under the next generation and is writing it.
            long held = OwnerRecord.ownerWord(Pids.current(), OwnerRecord.nextGeneration(freed));
            raw.setLongVolatile(slot + OwnerRecord.OWNER_WORD_OFFSET, held);

            CompletableFuture<Optional<Long>> read = parked(() -> tile.recordedAt(10));
            raw.setLongVolatile(slot + OwnerRecord.OWNER_WORD_OFFSET, freed); // it gave up
            assertThat(read.get(60, TimeUnit.SECONDS)).contains(1L);

            raw.setLongVolatile(slot + OwnerRecord.OWNER_WORD_OFFSET, held);
            CompletableFuture<Boolean> record =
                    parked(
                            () -> {
                                tile.record(10, 2L);
                                return true;
                            });
            assertThat(tile.recordedAt(0)).isEmpty();
            raw.setLongVolatile(slot + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.freed(held));
            assertThat(record.get(60, TimeUnit.SECONDS)).isTrue();
            assertThat(tile.recordedAt(10)).contains(2L);
            assertThat(OwnerRecord.key(OwnerRecord.ownerWord(raw, slot)))
                    .isEqualTo(OwnerRecord.key(held) + 1);
            assertThat(tile.opCounts()).containsEntry("push", 2L).containsEntry("read_at", 3L);
        }
    }

    @Test
    void everyReadOpIsCountedOnce() {
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        dir.resolve("n.cxc"),
                        new SharedVersionedChain.Settings<>(4, FixedCodec.INT64))) {
            chain.push(1L);
            chain.readAt(1);
            chain.lookup(1);
            chain.lookup(2);
            chain.current();
            chain.visibleMask();
            chain.visibleMask();
            assertThat(chain.opCounts())
                    .containsEntry("push", 1L)
                    .containsEntry("read_at", 3L)
                    .containsEntry("current", 1L)
                    .containsEntry("visible_mask", 2L);
            // Lap keys as the layout gives them: version / retained + 1.
            assertThat(SharedVersionedChainDescriptor.lapKey(1, 4)).isEqualTo(1);
            assertThat(SharedVersionedChainDescriptor.lapKey(9, 4)).isEqualTo(3);
            assertThat(SharedVersionedChainDescriptor.lapKey(0xFFFF_FFFFL * 4, 4)).isEqualTo(1);
        }
        try (SharedTimePointTile<Long> tile =
                SharedTimePointTile.TYPE.create(
                        dir.resolve("s.cxc"),
                        new SharedTimePointTile.Settings<>(-10, 1, 4, FixedCodec.INT64))) {
            tile.record(-7, 5L);
            // Long.MAX_VALUE - (-10) overflows to a negative offset: still "after the last point".
            assertThat(tile.valueAt(Long.MAX_VALUE)).contains(5L);
            assertThatThrownBy(() -> tile.record(Long.MAX_VALUE, 1L))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not one of the tile's points");
            tile.valueAt(-100);
            tile.recordedAt(-7);
            assertThat(tile.opCounts()).containsEntry("push", 1L).containsEntry("read_at", 3L);
        }
    }
}
