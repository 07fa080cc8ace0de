package io.subetha.cxc.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code set} racing {@code free} of the same block: a writer held between its handle check and its
 * write while another writer frees the block and allocates over its bytes (a split from the freed
 * block's end puts the new block's header inside the old payload).
 */
class SharedRegionSetRaceTest {

    @TempDir Path dir;

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
            // Before the fix: the late write had overwritten the first reused block's header.
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
