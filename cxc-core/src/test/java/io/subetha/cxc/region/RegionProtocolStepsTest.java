package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each step held at its {@code Interleaving} point while another thread, or another handle of the
 * file (as another process would), acts: a lock holder paused at any step of its intent makes
 * others wait, bounded, naming it; a reader whose block is freed after it copied refuses what it
 * read (the second block of a comparison too); a locked free and a disown that lose the block's tag
 * to a cached free elsewhere are refused, and the block is freed exactly once; a {@code set} held
 * after its check keeps the lock until it has written, so a free and a new allocation over its
 * bytes wait for it.
 */
class RegionProtocolStepsTest {

    static final long CAPACITY = 64 * 1024;

    @TempDir Path dir;

    RegionFiles files;

    @BeforeEach
    void files() {
        files = new RegionFiles(dir);
    }

    @AfterEach
    void closeFiles() {
        files.close();
    }

    SharedRegion region(long capacity) {
        return files.region(capacity);
    }

    @Test
    void aHolderPausedAtAnyStepMakesOthersWaitBoundedNamingIt() {
        for (Interleaving.Point step : SharedRegionProcessTest.REGION_STEPS) {
            try (SharedRegion region = region(4096);
                    SharedRegion impatient =
                            SharedRegion.open(
                                    region.file(),
                                    new SharedRegion.Settings(4096)
                                            .withLockTimeout(Duration.ofMillis(50)))) {
                long held = region.allocate(10);
                try (StepGate<Long> gate = StepGate.holdAt(step, () -> region.allocate(20))) {
                    assertThat(region.lockHolder()).isEqualTo(Pids.current());
                    assertThat(region.get(held)).hasSize(10); // readers take no lock
                    assertThatThrownBy(() -> impatient.free(held))
                            .isInstanceOf(CxcTimeoutException.class)
                            .hasMessageContaining("held by live PID " + Pids.current());
                    long allocated = gate.release();
                    assertThat(region.isAllocated(allocated)).as("at %s", step).isTrue();
                }
                region.free(held);
                RegionInvariants.check(region);
                assertThat(region.usedBlocks()).isEqualTo(1);
            }
        }
    }

    @Test
    void aReaderWhoseBlockIsFreedAfterItCopiedRefusesWhatItRead() {
        Path path = dir.resolve("read.region");
        try (SharedRegion region =
                SharedRegion.TYPE.create(path, new SharedRegion.Settings(CAPACITY))) {
            byte[] bytes = RegionChild.pattern(7, 40);
            long other = region.allocate(40);
            region.set(other, bytes);
            for (int reader = 0; reader < 5; reader++) {
                long handle = region.allocate(40);
                region.set(handle, bytes);
                Supplier<Object> read = reader(region, reader, handle, other, bytes);
                try (StepGate<Object> gate = StepGate.holdAt(Point.REGION_PAYLOAD_READ, read)) {
                    region.free(handle);
                    assertThatThrownBy(gate::release)
                            .as("reader %d", reader)
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("was freed while it was read");
                }
                // Freed and allocated again (a new generation) while it was read: refused too.
                long again = region.allocate(40);
                region.set(again, bytes);
                Supplier<Object> late = reader(region, reader, again, other, bytes);
                try (StepGate<Object> gate = StepGate.holdAt(Point.REGION_PAYLOAD_READ, late)) {
                    region.free(again);
                    long reused = region.allocate(40);
                    assertThat(offset(reused)).isEqualTo(offset(again));
                    assertThatThrownBy(gate::release)
                            .as("reader %d", reader)
                            .hasMessageContaining("was freed while it was read");
                    region.free(reused);
                }
                // Not freed: the bytes are returned.
                long kept = region.allocate(40);
                region.set(kept, bytes);
                try (StepGate<Object> gate =
                        StepGate.holdAt(
                                Point.REGION_PAYLOAD_READ,
                                reader(region, reader, kept, other, bytes))) {
                    assertThat(gate.release()).isNotNull();
                }
                region.free(kept);
            }
            RegionInvariants.check(region);
        }
    }

    private static Supplier<Object> reader(
            SharedRegion region, int kind, long handle, long other, byte[] bytes) {
        return switch (kind) {
            case 0 -> () -> region.get(handle);
            case 1 ->
                    () -> {
                        byte[] into = new byte[4];
                        region.get(handle, 2, into, 0, 4);
                        return into;
                    };
            case 2 ->
                    () -> {
                        ByteBuffer into = ByteBuffer.allocate(4);
                        region.get(handle, 2, into, 4);
                        return into;
                    };
            case 3 -> () -> region.payloadEquals(handle, other) ? "equal" : "unequal";
            default -> () -> region.payloadEquals(handle, bytes, 0) ? "equal" : "unequal";
        };
    }

    @Test
    void aComparisonWhoseSecondBlockIsFreedWhileItComparedRefuses() {
        SharedRegion region = region(64 * 1024);
        long a = region.allocate(20);
        long b = region.allocate(20);
        byte[] bytes = RegionChild.pattern(3, 20);
        region.set(a, bytes);
        region.set(b, bytes);
        try (StepGate<Boolean> gate =
                StepGate.holdAt(Point.REGION_PAYLOAD_READ, () -> region.payloadEquals(a, b))) {
            region.free(b);
            assertThatThrownBy(gate::release)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("was freed while it was read");
        }
        assertThat(region.isAllocated(a)).isTrue();
    }

    @Test
    void aLockedFreeThatLosesTheBlockToACachedFreeElsewhereIsRefused() {
        Path path = dir.resolve("free.region");
        try (SharedRegion a =
                        SharedRegion.TYPE.create(
                                path, new SharedRegion.Settings(CAPACITY).withFreeCache(false));
                SharedRegion b =
                        SharedRegion.TYPE.openAsRecorded(path, CxcFileOptions.defaults())) {
            long handle = a.allocate(40);
            int block = (int) offset(handle);
            try (StepGate<Void> locked =
                    StepGate.holdAt(
                            Point.REGION_HANDLE_CHECKED,
                            () -> {
                                a.free(handle);
                                return null;
                            })) {
                b.free(handle); // the cache: no lock, one CAS of the tag
                assertThat(b.cachedBlocks()).isEqualTo(1);
                assertThatThrownBy(locked::release)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("free refused in region")
                        .hasMessageContaining("names no allocated block");
            }
            assertThat(RawBody.of(path).getLongVolatile(block + TAG_WORD))
                    .as("still b's cached block")
                    .isEqualTo(tag(0, Pids.current()));
            assertThat(a.freeList()).doesNotContain(block);
            assertThat(b.flushCache()).isEqualTo(1);
            assertThat(a.usedBlocks()).isZero();
            assertThat(a.freeList()).hasSize(1);
            RegionInvariants.check(a);
        }
    }

    @Test
    void aDisownThatLosesTheBlockToACachedFreeElsewhereIsRefused() {
        Path path = dir.resolve("disown.region");
        try (SharedRegion a = SharedRegion.TYPE.create(path, new SharedRegion.Settings(CAPACITY));
                SharedRegion b =
                        SharedRegion.TYPE.openAsRecorded(path, CxcFileOptions.defaults())) {
            long handle = a.allocate(40);
            int block = (int) offset(handle);
            try (StepGate<Void> disowner =
                    StepGate.holdAt(
                            Point.REGION_HANDLE_CHECKED,
                            () -> {
                                a.disown(handle);
                                return null;
                            })) {
                b.free(handle);
                assertThatThrownBy(disowner::release)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("disown refused in region");
            }
            assertThat(RawBody.of(path).getLongVolatile(block + TAG_WORD))
                    .isEqualTo(tag(0, Pids.current()));
            assertThat(b.cachedBlocks()).isEqualTo(1);
            b.flushCache();
            assertThat(a.usedBlocks()).isZero();
            RegionInvariants.check(a);
            // Not raced: the disown wins and the block is nobody's.
            long kept = a.allocate(40);
            try (StepGate<Void> disowner =
                    StepGate.holdAt(
                            Point.REGION_HANDLE_CHECKED,
                            () -> {
                                a.disown(kept);
                                return null;
                            })) {
                disowner.release();
            }
            assertThat(a.ownerOf(kept)).isZero();
        }
    }

    @Test
    void aBufferSetHeldAfterItsCheckHoldsTheLockUntilItHasWritten() {
        try (SharedRegion region =
                SharedRegion.TYPE.create(
                        dir.resolve("set.region"), new SharedRegion.Settings(CAPACITY))) {
            long handle = region.allocate(8);
            long other = region.allocate(300);
            ByteBuffer source = ByteBuffer.wrap(new byte[] {1, 2, 3});
            try (StepGate<Void> writer =
                    StepGate.holdAt(
                            Point.REGION_SET_CHECKED,
                            () -> {
                                region.set(handle, 5, source);
                                return null;
                            })) {
                assertThat(region.lockHolder()).isEqualTo(Pids.current());
                try (SharedRegion impatient =
                        SharedRegion.open(
                                region.file(),
                                new SharedRegion.Settings(CAPACITY)
                                        .withLockTimeout(Duration.ofMillis(50)))) {
                    assertThatThrownBy(() -> impatient.free(other))
                            .isInstanceOf(CxcTimeoutException.class);
                }
                writer.release();
            }
            assertThat(source.position()).isEqualTo(3);
            byte[] out = new byte[3];
            region.get(handle, 5, out, 0, 3);
            assertThat(out).containsExactly(1, 2, 3);
            region.free(other);
            RegionInvariants.check(region);
        }
    }

    @Test
    void aSetHeldAfterItsCheckCannotLandOnABlockFreedAndAllocatedMeanwhile() throws Exception {
        try (SharedRegion region =
                SharedRegion.TYPE.create(
                        dir.resolve("race.region"), new SharedRegion.Settings(4096))) {
            long after =
                    region.allocate(64); // blocks are split from the end: after, victim, before
            long victim = region.allocate(200);
            long before = region.allocate(64);
            // The rest of the heap, so that the victim's block is the first fit once freed.
            region.allocate(region.largestFreeBlock() - SharedRegionDescriptor.OVERHEAD);
            assertThat(region.freeBytes()).isZero();
            byte[] afterBytes = RegionChild.pattern(after, 64);
            byte[] beforeBytes = RegionChild.pattern(before, 64);
            region.set(after, afterBytes);
            region.set(before, beforeBytes);
            byte[] ones = new byte[200];
            Arrays.fill(ones, (byte) 0xFF);
            long[] reused = new long[2];
            boolean freerWaited;
            try (StepGate<Void> writer =
                    StepGate.holdAt(
                            Point.REGION_SET_CHECKED,
                            () -> {
                                region.set(victim, ones);
                                return null;
                            })) {
                CompletableFuture<Void> freer =
                        CompletableFuture.runAsync(
                                () -> {
                                    region.free(victim);
                                    reused[0] = region.allocate(40);
                                    reused[1] = region.allocate(40);
                                });
                // Without the lock the freer finishes here; with it, it waits its turn.
                await().atMost(Duration.ofSeconds(60))
                        .until(
                                () ->
                                        freer.isDone()
                                                || (long) region.describe().get("lockWaiterPid")
                                                        != 0);
                freerWaited = !freer.isDone();
                writer.release();
                freer.get(60, TimeUnit.SECONDS);
            }
            // A set written after the free would have overwritten the first reused block's header.
            RegionInvariants.check(region);
            assertThat(freerWaited).as("free waited for the set holding the lock").isTrue();
            assertThat(region.get(after)).isEqualTo(afterBytes);
            assertThat(region.get(before)).isEqualTo(beforeBytes);
            for (long handle : reused) {
                byte[] mine = RegionChild.pattern(handle, 40);
                region.set(handle, mine);
                assertThat(region.get(handle)).isEqualTo(mine);
            }
            assertThatThrownBy(() -> region.set(victim, ones))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("set");
        }
    }
}
