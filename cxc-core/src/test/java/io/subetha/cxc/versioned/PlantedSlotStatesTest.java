package io.subetha.cxc.versioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.versioned.VersionRead.Status;
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
 * Each slot state another process can leave, planted in the file word by word, read and pushed over
 * as the protocol says: a slot a later version already wrote, a later pusher holding the slot,
 * versions given but not written at the edge of the retained window, a pusher killed holding its
 * slot (its version reads NOT_WRITTEN, is passed over by {@code current()}, and the next push to
 * that slot takes it over at once), bytes that do not decode, a recorder killed mid-record, a
 * refused value, and a reopened tile's points. A live holder of a slot is waited for, never
 * displaced: a push to a slot a live pusher of an earlier lap holds, and a record or a read of a
 * point a live recorder holds, park until the holder frees it (planted: this process's PID in the
 * owner word), then go on with the freed slot; each wait is seen parked before the slot is freed.
 */
class PlantedSlotStatesTest {

    /** A PID no process can have (above every kernel's pid_max): always provably dead. */
    static final long DEAD_PID = Pids.MAX_PID - 1;

    static final int STRIDE = SharedVersionedChainDescriptor.strideFor(8);

    /** The versions the dead pusher's chain retains: two, so its slot comes round at once. */
    static final int DEAD_PUSHER_RETAINED = 2;

    @TempDir Path dir;

    static int chainSlot(long version, int retained) {
        return SharedVersionedChainDescriptor.slotOffset(version, retained, STRIDE);
    }

    @Test
    void aPushWhoseSlotALaterVersionAlreadyWroteReturnsWithoutClaimingIt() {
        Path path = dir.resolve("c.cxc");
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        path, new SharedVersionedChain.Settings<>(2, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            int slot = chainSlot(1, 2);
            // Version 1's slot already holds version 1 (the same stamp): nothing left to write.
            raw.setLongVolatile(slot + SharedVersionedChainDescriptor.STAMP_OFFSET, 1);
            assertThat(chain.push(10L)).isEqualTo(1);
            assertThat(OwnerRecord.ownerWord(raw, slot)).isZero();
            assertThat(raw.getLongVolatile(slot + SharedVersionedChainDescriptor.VALUE_OFFSET))
                    .isZero();
            // Version 2's slot holds version 4: version 2 was evicted before it was written.
            int later = chainSlot(2, 2);
            raw.setLongVolatile(later + SharedVersionedChainDescriptor.STAMP_OFFSET, 4);
            assertThat(chain.push(20L)).isEqualTo(2);
            assertThat(OwnerRecord.ownerWord(raw, later)).isZero();
            assertThat(chain.lookup(2).status()).isEqualTo(Status.NOT_RETAINED);
            assertThat(chain.opCounts()).containsEntry("push", 2L);
        }
    }

    @Test
    void aVersionWhoseSlotALaterPusherHoldsIsNotRetained() {
        Path path = dir.resolve("c.cxc");
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        path, new SharedVersionedChain.Settings<>(2, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            chain.push(10L);
            chain.push(20L);
            assertThat(chain.readAt(2)).contains(20L);
            // Version 4's pusher claimed version 2's slot and has not stamped it yet.
            raw.setLongVolatile(SharedVersionedChainDescriptor.VERSIONS_OFFSET, 4);
            raw.setLongVolatile(
                    chainSlot(2, 2) + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(
                            Pids.current(), SharedVersionedChainDescriptor.lapKey(4, 2)));
            assertThat(chain.lookup(2).status()).isEqualTo(Status.NOT_RETAINED);
            assertThat(chain.lookup(4).status()).isEqualTo(Status.NOT_WRITTEN);
            assertThat(chain.lookup(3).status()).isEqualTo(Status.NOT_WRITTEN);
            assertThat(chain.current()).isEmpty();
            assertThat(chain.visibleMask()).isZero();
        }
    }

    @Test
    void versionsGivenButNotWrittenAreNotWrittenInsideTheWindowAndNotRetainedOutside() {
        Path path = dir.resolve("c.cxc");
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        path, new SharedVersionedChain.Settings<>(4, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            for (long v = 1; v <= 4; v++) {
                chain.push(v * 10);
            }
            // Version 5 given, its pusher not there yet: its slot still holds version 1.
            raw.setLongVolatile(SharedVersionedChainDescriptor.VERSIONS_OFFSET, 5);
            assertThat(chain.lookup(5).status()).isEqualTo(Status.NOT_WRITTEN);
            // Version 1's bytes are still whole, but it is outside the window the mask shows.
            assertThat(chain.visibleMask()).isEqualTo(0b1110);
            assertThat(chain.current()).contains(40L);

            // Versions 5..8 given and none written: all four in the window, none readable.
            raw.setLongVolatile(SharedVersionedChainDescriptor.VERSIONS_OFFSET, 8);
            assertThat(chain.current()).isEmpty();
            assertThat(chain.visibleMask()).isZero();
            assertThat(chain.lookup(8).status()).isEqualTo(Status.NOT_WRITTEN);
            assertThat(chain.lookup(5).status()).isEqualTo(Status.NOT_WRITTEN);

            // Version 10 given: 6 (10 - 4) is just out of the window, 7 just in.
            raw.setLongVolatile(SharedVersionedChainDescriptor.VERSIONS_OFFSET, 10);
            assertThat(chain.lookup(6).status()).isEqualTo(Status.NOT_RETAINED);
            assertThat(chain.lookup(7).status()).isEqualTo(Status.NOT_WRITTEN);
            assertThat(chain.describe())
                    .containsEntry("retained", 4)
                    .containsEntry("currentVersion", 10L);
        }
    }

    @Test
    void theMaskCoversAtMostSixtyFourVersions() {
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        dir.resolve("w.cxc"),
                        new SharedVersionedChain.Settings<>(70, FixedCodec.INT64))) {
            for (long v = 1; v <= 70; v++) {
                chain.push(v);
            }
            assertThat(chain.visibleMask()).isEqualTo(-1L);
            assertThat(chain.current()).contains(70L);
            assertThat(chain.readAt(1)).contains(1L);
        }
    }

    @Test
    void aValueThatDoesNotDecodeIsAFormatErrorNamingTheVersionOrPoint() {
        Path chainPath = dir.resolve("b.cxc");
        try (SharedVersionedChain<Boolean> chain =
                SharedVersionedChain.TYPE.create(
                        chainPath, new SharedVersionedChain.Settings<>(2, FixedCodec.BOOL))) {
            chain.push(true);
            RawBody.of(chainPath)
                    .putByte(
                            chainSlot(1, 2) + SharedVersionedChainDescriptor.VALUE_OFFSET,
                            (byte) 7);
            assertThatThrownBy(() -> chain.readAt(1))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("the value of version 1 does not decode");
        }
        Path tilePath = dir.resolve("t.cxc");
        try (SharedTimePointTile<Boolean> tile =
                SharedTimePointTile.TYPE.create(
                        tilePath,
                        new SharedTimePointTile.Settings<>(100, 10, 2, FixedCodec.BOOL))) {
            tile.record(110, true);
            RawBody.of(tilePath)
                    .putByte(
                            SharedTimePointTileDescriptor.slotOffset(1, STRIDE)
                                    + SharedTimePointTileDescriptor.VALUE_OFFSET,
                            (byte) 7);
            assertThatThrownBy(() -> tile.valueAt(115))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("the value at point 110 does not decode");
        }
    }

    @Test
    void aRecorderKilledMidRecordHidesThePointUntilTheNextRecordTakesItOver() {
        Path path = dir.resolve("t.cxc");
        try (SharedTimePointTile<Long> tile =
                SharedTimePointTile.TYPE.create(
                        path, new SharedTimePointTile.Settings<>(0, 10, 3, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            tile.record(0, 1L);
            tile.record(10, 2L);
            int slot = SharedTimePointTileDescriptor.slotOffset(1, STRIDE);
            long stamp = raw.getLongVolatile(slot + SharedTimePointTileDescriptor.STAMP_OFFSET);
            long freed = OwnerRecord.ownerWord(raw, slot);
            assertThat(OwnerRecord.key(freed)).isEqualTo(stamp);
            // Claimed under the next generation, then killed before the stamp.
            raw.setLongVolatile(
                    slot + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(DEAD_PID, OwnerRecord.nextGeneration(freed)));

            assertThat(tile.recordedAt(10)).isEmpty();
            assertThat(tile.valueAt(25)).contains(1L);
            assertThat(tile.describe()).containsEntry("recordedPoints", 2);

            tile.record(10, 3L);
            assertThat(tile.recordedAt(10)).contains(3L);
            assertThat(tile.valueAt(25)).contains(3L);
            long after = OwnerRecord.ownerWord(raw, slot);
            assertThat(OwnerRecord.pid(after)).isEqualTo(OwnerRecord.NO_OWNER);
            assertThat(OwnerRecord.key(after)).isEqualTo(stamp + 2);
            assertThat(raw.getLongVolatile(slot + SharedTimePointTileDescriptor.STAMP_OFFSET))
                    .isEqualTo(stamp + 2);
        }
    }

    @Test
    void aRefusedValueKeepsThePointsOldValueAndLeavesAnUnrecordedPointUnrecorded() {
        Path path = dir.resolve("s.cxc");
        try (SharedTimePointTile<String> tile =
                SharedTimePointTile.TYPE.create(
                        path, new SharedTimePointTile.Settings<>(0, 1, 3, FixedCodec.string(3)))) {
            tile.record(0, "abc");
            assertThatThrownBy(() -> tile.record(0, "abcd"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(tile.recordedAt(0)).contains("abc");
            assertThatThrownBy(() -> tile.record(1, "abcd"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(tile.recordedAt(1)).isEmpty();
            assertThat(tile.valueAt(2)).contains("abc");
            assertThat(tile.describe()).containsEntry("recordedPoints", 1);
            assertThatThrownBy(() -> tile.record(0, null)).hasMessage("value must not be null");
            // Free again after each refusal: the next record claims at once.
            tile.record(1, "xy");
            assertThat(tile.valueAt(2)).contains("xy");
            AtomicBuffer raw = RawBody.of(path);
            for (int point = 0; point < 2; point++) {
                assertThat(
                                OwnerRecord.pid(
                                        OwnerRecord.ownerWord(
                                                raw,
                                                SharedTimePointTileDescriptor.slotOffset(
                                                        point, STRIDE))))
                        .isEqualTo(OwnerRecord.NO_OWNER);
            }
        }
    }

    @Test
    void timesBeforeANegativeStartAndFarPastItAreAnsweredWithoutOverflow() {
        try (SharedTimePointTile<Long> tile =
                SharedTimePointTile.TYPE.create(
                        dir.resolve("n.cxc"),
                        new SharedTimePointTile.Settings<>(-10, 3, 4, FixedCodec.INT64))) {
            tile.record(-10, 1L);
            tile.record(-1, 4L);
            assertThat(tile.valueAt(Long.MAX_VALUE)).contains(4L);
            assertThat(tile.valueAt(Long.MIN_VALUE)).isEmpty();
            assertThat(tile.valueAt(-11)).isEmpty();
            assertThat(tile.valueAt(-10)).contains(1L);
            assertThat(tile.valueAt(-2)).contains(1L);
            assertThat(tile.end()).isEqualTo(-1);
            assertThat(tile.start()).isEqualTo(-10);
            assertThat(tile.pointTime(0)).isEqualTo(-10);
            assertThat(tile.pointTime(3)).isEqualTo(-1);
            assertThatThrownBy(() -> tile.pointTime(4))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> tile.pointTime(-1))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> tile.record(Long.MAX_VALUE, 1L))
                    .hasMessageContaining("4 points from -10 to -1, every 3");
            assertThatThrownBy(() -> tile.record(2, 1L)).hasMessageContaining("is not one of");
            assertThat(tile.describe())
                    .containsEntry("start", -10L)
                    .containsEntry("step", 3L)
                    .containsEntry("points", 4)
                    .containsEntry("recordedPoints", 2);
            assertThat(tile.opCounts()).containsEntry("push", 2L);
        }
    }

    @Test
    void reopeningRefusesAnotherStartAndAnObserverSeesTheRecordedSettings() {
        Path tilePath = dir.resolve("t.cxc");
        SharedTimePointTile.TYPE
                .create(tilePath, new SharedTimePointTile.Settings<>(0, 5, 4, FixedCodec.INT64))
                .close();
        assertThatThrownBy(
                        () ->
                                SharedTimePointTile.openOrCreate(
                                        tilePath,
                                        new SharedTimePointTile.Settings<>(
                                                1, 5, 4, FixedCodec.INT64)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("from 1 every 5: it was created with points from 0 every 5");
        assertThatThrownBy(
                        () ->
                                SharedTimePointTile.open(
                                        tilePath,
                                        new SharedTimePointTile.Settings<>(
                                                0, 6, 4, FixedCodec.INT64)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("from 0 every 6: it was created with points from 0 every 5");
        try (var same =
                SharedTimePointTile.openOrCreate(
                        tilePath, new SharedTimePointTile.Settings<>(0, 5, 4, FixedCodec.INT64))) {
            assertThat(same.end()).isEqualTo(15);
        }
        try (var view = SharedTimePointTile.TYPE.observe(tilePath, CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("points", 4);
        }
        Path chainPath = dir.resolve("c.cxc");
        SharedVersionedChain.openOrCreate(
                        chainPath, new SharedVersionedChain.Settings<>(3, FixedCodec.INT64))
                .close();
        try (var view = SharedVersionedChain.TYPE.observe(chainPath, CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("retained", 3);
        }
    }

    @Test
    void aRefusedRecordOverADeadRecordersClaimLeavesThePointHidden() {
        Path path = dir.resolve("d.cxc");
        try (SharedTimePointTile<String> tile =
                SharedTimePointTile.TYPE.create(
                        path, new SharedTimePointTile.Settings<>(0, 2, 2, FixedCodec.string(3)))) {
            AtomicBuffer raw = RawBody.of(path);
            tile.record(2, "old");
            int slot = SharedTimePointTileDescriptor.slotOffset(1, STRIDE);
            long freed = OwnerRecord.ownerWord(raw, slot);
            // Killed replacing the value: the stamp no longer matches the owner key.
            raw.setLongVolatile(
                    slot + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(DEAD_PID, OwnerRecord.nextGeneration(freed)));
            assertThatThrownBy(() -> tile.record(2, "long"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(tile.recordedAt(2)).isEmpty(); // half-replaced bytes never published
            // A refused record over a whole value keeps it (point 0's slot follows the header).
            tile.record(0, "abc");
            assertThatThrownBy(() -> tile.record(0, "abcd"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(tile.recordedAt(0)).contains("abc");
        }
    }

    @Test
    void theMaskNeverFoldsAVersionPastSixtyFourIntoItsLowBits() {
        Path path = dir.resolve("m.cxc");
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        path, new SharedVersionedChain.Settings<>(70, FixedCodec.INT64))) {
            for (long v = 1; v <= 70; v++) {
                chain.push(v);
            }
            // Version 71 given, not written: bit 0 clear, versions 70..8 in bits 1..63.
            RawBody.of(path).setLongVolatile(SharedVersionedChainDescriptor.VERSIONS_OFFSET, 71);
            assertThat(chain.visibleMask()).isEqualTo(-2L);
            assertThat(chain.current()).contains(70L);
        }
    }

    @Test
    void aDeadPushersVersionIsNotWrittenAndItsSlotIsTakenOverByTheNextLap() {
        Path path = dir.resolve("chain.cxc");
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        path,
                        new SharedVersionedChain.Settings<>(
                                DEAD_PUSHER_RETAINED, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            assertThat(chain.push(10L)).isEqualTo(1);
            // Version 2 given to a pusher that claimed its slot and was killed before writing.
            raw.setLongVolatile(SharedVersionedChainDescriptor.VERSIONS_OFFSET, 2);
            int slot = SharedVersionedChainDescriptor.slotOffset(2, DEAD_PUSHER_RETAINED, STRIDE);
            raw.setLongVolatile(
                    slot + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(
                            DEAD_PID,
                            SharedVersionedChainDescriptor.lapKey(2, DEAD_PUSHER_RETAINED)));

            assertThat(chain.lookup(2).status()).isEqualTo(VersionRead.Status.NOT_WRITTEN);
            assertThat(chain.current()).contains(10L);
            assertThat(chain.lookup(3).status()).isEqualTo(VersionRead.Status.NEVER_PUSHED);
            assertThat(chain.lookup(0).status()).isEqualTo(VersionRead.Status.NEVER_PUSHED);

            assertThat(chain.push(30L)).isEqualTo(3); // version 1's slot, free
            assertThat(chain.push(40L)).isEqualTo(4); // the dead pusher's slot, taken over

            assertThat(chain.readAt(4)).contains(40L);
            assertThat(chain.readAt(3)).contains(30L);
            assertThat(chain.lookup(2).status()).isEqualTo(VersionRead.Status.NOT_RETAINED);
            assertThat(chain.lookup(1).status()).isEqualTo(VersionRead.Status.NOT_RETAINED);
            assertThat(chain.current()).contains(40L);
            long owner = OwnerRecord.ownerWord(raw, slot);
            assertThat(OwnerRecord.pid(owner)).isEqualTo(OwnerRecord.NO_OWNER);
            assertThat(OwnerRecord.key(owner))
                    .isEqualTo(SharedVersionedChainDescriptor.lapKey(4, DEAD_PUSHER_RETAINED));
            assertThat(raw.getLongVolatile(slot + SharedVersionedChainDescriptor.STAMP_OFFSET))
                    .isEqualTo(4);
        }
    }

    @Test
    void aDeadPushersVersionIsPassedOverByCurrentWhenItIsTheNewest() {
        Path path = dir.resolve("chain.cxc");
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        path, new SharedVersionedChain.Settings<>(3, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            chain.push(1L);
            chain.push(2L);
            raw.setLongVolatile(SharedVersionedChainDescriptor.VERSIONS_OFFSET, 3);
            raw.setLongVolatile(
                    SharedVersionedChainDescriptor.slotOffset(3, 3, STRIDE)
                            + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(DEAD_PID, SharedVersionedChainDescriptor.lapKey(3, 3)));
            assertThat(chain.current()).contains(2L);
            assertThat(chain.lookup(3).status()).isEqualTo(VersionRead.Status.NOT_WRITTEN);
            assertThat(chain.lookup(3).isReadable()).isFalse();
            assertThat(chain.push(4L)).isEqualTo(4);
            assertThat(chain.current()).contains(4L);
        }
    }

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
}
