package io.subetha.cxc.region;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real processes on one region: SIGKILLs at every step of the allocator's protocol and at random
 * points of a hot loop, after which the survivors find the free list consistent, the lock not left
 * held, and every dead process's blocks reclaimable; and two processes that see and free each
 * other's blocks.
 *
 * <p>The kills cover the free cache's lock-free path too ({@link #CACHE_STEPS}): the churn's blocks
 * of up to 300 bytes are mostly small enough to be cached.
 *
 * <p>{@code -Dcxc.region.kills=N} sets the random kills (default 6); the README's on-demand list
 * has the command for thousands.
 */
class SharedRegionProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final int KILLS = Integer.getInteger("cxc.region.kills", 6);
    static final long CAPACITY = 64 * 1024;

    static final EnumSet<Point> REGION_STEPS =
            EnumSet.of(
                    Point.INTENT_LOCKED,
                    Point.INTENT_STAGED,
                    Point.INTENT_SEALED,
                    Point.INTENT_HALF_APPLIED,
                    Point.INTENT_APPLIED,
                    Point.INTENT_CLEARED);

    /** The steps of the free cache's path, which takes no lock. */
    static final EnumSet<Point> CACHE_STEPS =
            EnumSet.of(Point.REGION_CACHE_CLAIMED, Point.REGION_CACHE_POPPED);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    /** After a SIGKILL the region must be sound, usable, and empty once the dead are reclaimed. */
    static void assertRecovered(SharedRegion region) {
        long handle = region.allocate(100); // takes over a lock left by the dead, repairs
        region.set(handle, RegionChild.pattern(handle, 100));
        RegionInvariants.check(region);
        region.reclaimDead();
        assertThat(region.usedBlocks()).as("only the survivor's block is left").isEqualTo(1);
        assertThat(region.get(handle)).isEqualTo(RegionChild.pattern(handle, 100));
        region.free(handle);
        RegionInvariants.check(region);
        region.flushCache(); // the survivor's own cache, back to the free list
        RegionInvariants.check(region);
        assertThat(region.usedBytes()).isZero();
        assertThat(region.freeBytes()).isEqualTo(region.capacity());
        assertThat(region.freeList()).hasSize(1);
    }

    @Test
    void aSigkillAtEveryStepOfTheProtocolIsRepairedByTheNextHolder() {
        SplittableRandom random = new SplittableRandom();
        List<Point> steps = new ArrayList<>(REGION_STEPS);
        steps.addAll(CACHE_STEPS);
        List<ChildJvm> jvms = new ArrayList<>();
        List<Path> paths = new ArrayList<>();
        for (Point step : steps) {
            Path path = dir.resolve(step + ".region");
            SharedRegion.TYPE.create(path, new SharedRegion.Settings(CAPACITY)).close();
            paths.add(path);
            // Far enough into the churn that the heap is fragmented and every kind of step occurs.
            int nth = 200 + random.nextInt(400);
            jvms.add(
                    children.add(
                            ChildJvm.start(
                                    "step-" + step,
                                    RegionChild.class,
                                    "step",
                                    path.toString(),
                                    Long.toString(random.nextLong()),
                                    step.name(),
                                    Integer.toString(nth))));
        }
        for (int i = 0; i < steps.size(); i++) {
            ChildJvm child = jvms.get(i);
            Point step = steps.get(i);
            child.awaitLine(line -> line.equals("at " + step), STEP);
            child.kill();
            try (SharedRegion region =
                    SharedRegion.open(paths.get(i), new SharedRegion.Settings(CAPACITY))) {
                assertThat(region.lockHolder())
                        .as("the dead child left the lock held (the cache's path takes none)")
                        .isEqualTo(CACHE_STEPS.contains(step) ? 0 : child.pid());
                if (CACHE_STEPS.contains(step)) {
                    assertThat(region.blocks())
                            .as("the block half-way into or out of the dead child's cache")
                            .anyMatch(b -> b.cached() && b.ownerPid() == child.pid());
                }
                long repairsBefore = region.repairs();
                assertRecovered(region);
                boolean committed =
                        EnumSet.of(
                                        Point.INTENT_SEALED,
                                        Point.INTENT_HALF_APPLIED,
                                        Point.INTENT_APPLIED)
                                .contains(steps.get(i));
                assertThat(region.repairs() - repairsBefore)
                        .as("a committed step is completed from the journal, at %s", steps.get(i))
                        .isEqualTo(committed ? 1 : 0);
            }
        }
    }

    @Test
    void randomSigkillsOfConcurrentAllocatorsNeverCorruptTheFreeList() throws Exception {
        Path path = dir.resolve("churn.region");
        SplittableRandom random = new SplittableRandom();
        try (SharedRegion region =
                SharedRegion.TYPE.create(path, new SharedRegion.Settings(CAPACITY))) {
            int killed = 0;
            int lockLeftHeld = 0;
            long reclaimedBlocks = 0;
            while (killed < KILLS) {
                // Two allocators at once, so the lock is contended and taken over mid-wait.
                List<ChildJvm> pair = new ArrayList<>();
                for (int c = 0; c < 2; c++) {
                    pair.add(
                            children.add(
                                    ChildJvm.start(
                                            "churn-" + killed + "-" + c,
                                            RegionChild.class,
                                            "churn",
                                            path.toString(),
                                            Long.toString(random.nextLong()))));
                }
                for (ChildJvm child : pair) {
                    child.awaitLine("ready"::equals, STEP);
                }
                for (ChildJvm child : pair) {
                    // A random instant of the hot loop (not a synchronisation: any instant will
                    // do).
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(20_000)));
                    child.kill();
                    killed++;
                    assertThat(child.diagnostics()).doesNotContain("changed under its owner");
                }
                long holder = region.lockHolder();
                if (pair.stream().anyMatch(child -> child.pid() == holder)) {
                    lockLeftHeld++;
                }
                RegionInvariants.check(region);
                // As a survivor would: the dead's blocks back to the free list, still sound.
                reclaimedBlocks += region.usedBlocks();
                region.reclaimDead();
                RegionInvariants.check(region);
                assertThat(region.usedBlocks()).isZero();
            }
            System.out.printf(
                    "region kill test: %d SIGKILLs, lock left held by the dead %d times, %d"
                            + " committed steps completed from the journal, %d blocks of the dead"
                            + " reclaimed%n",
                    killed, lockLeftHeld, region.repairs(), reclaimedBlocks);
            assertRecovered(region);
        }
    }

    @Test
    void twoProcessesSeeAndFreeEachOthersBlocksAndTheDeadOnesAreReclaimed() {
        Path path = dir.resolve("exchange.region");
        try (SharedRegion region =
                SharedRegion.TYPE.create(path, new SharedRegion.Settings(CAPACITY))) {
            ChildJvm a =
                    children.add(
                            ChildJvm.start(
                                    "a", RegionChild.class, "exchange", path.toString(), "100"));
            ChildJvm b =
                    children.add(
                            ChildJvm.start(
                                    "b", RegionChild.class, "exchange", path.toString(), "100"));
            List<Long> ofA = handles(a.awaitPrefixed("handles ", STEP));
            List<Long> ofB = handles(b.awaitPrefixed("handles ", STEP));
            for (long handle : concat(ofA, ofB)) {
                assertThat(region.get(handle))
                        .isEqualTo(RegionChild.pattern(handle, region.sizeOf(handle)));
            }
            assertThat(ofA.stream().map(region::ownerOf).distinct()).containsExactly(a.pid());
            // A frees B's blocks: any process may free any block.
            String[] freed =
                    a.ask(
                                    "free "
                                            + ofB.stream()
                                                    .map(String::valueOf)
                                                    .collect(Collectors.joining(" ")))
                            .substring("freed ".length())
                            .split(" ");
            assertThat(freed[0]).isEqualTo("100");
            // Some of them are in A's free cache now: used, A's, until A allocates them again.
            int cachedBlocks = Integer.parseInt(freed[2]);
            long cachedBytes = Long.parseLong(freed[4]);
            assertThat(cachedBlocks).isPositive();
            assertThat(b.askFailing("check"))
                    .startsWith("error"); // its blocks are gone: it is told
            assertThat(a.ask("check")).isEqualTo("ok");
            RegionInvariants.check(region);
            assertThat(region.usedBlocks()).isEqualTo(100 + cachedBlocks);
            assertThat(region.reclaimDead()).as("A is alive: nothing is reclaimed").isZero();
            a.kill();
            long expected =
                    ofA.stream()
                            .mapToLong(h -> SharedRegionDescriptor.blockSize(region.sizeOf(h)))
                            .sum();
            assertThat(region.reclaimDead())
                    .as("A's blocks and its free cache")
                    .isEqualTo(expected + cachedBytes);
            RegionInvariants.check(region);
            assertThat(region.usedBytes()).isZero();
        }
    }

    static List<Long> handles(String line) {
        return Arrays.stream(line.trim().split(" "))
                .map(Long::parseLong)
                .collect(Collectors.toList());
    }

    static List<Long> concat(List<Long> a, List<Long> b) {
        List<Long> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
