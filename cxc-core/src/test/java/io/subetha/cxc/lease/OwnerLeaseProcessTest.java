package io.subetha.cxc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Named leases across real JVMs sharing one mapped file. */
class OwnerLeaseProcessTest {

    private static final Duration STARTUP = Duration.ofSeconds(30);
    private static final Duration REPLY = Duration.ofSeconds(60);

    /** Child JVMs SIGKILLed at a random point of a hot acquire/release/bind loop. */
    private static final int KILLS = Integer.getInteger("cxc.lease.kills", 4);

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    private ChildJvm start(String name, Path file, int capacity) {
        ChildJvm child = children.add(ChildJvm.start(name, LeaseChild.class));
        child.awaitPrefixed("ready ", STARTUP);
        child.send("open " + file + " " + capacity);
        child.awaitPrefixed("opened", REPLY);
        return child;
    }

    @Test
    void twoJvmsContendingForOneNameNeverBothHoldItAndTokensStrictlyRise() throws Exception {
        Path file = dir.resolve("leases.cxc");
        Path scratch = dir.resolve("scratch");
        AtomicBuffer shared = LeaseChild.scratch(scratch);
        List<ChildJvm> jvms = List.of(start("lease-a", file, 16), start("lease-b", file, 16));
        int iterations = 20_000;
        for (ChildJvm jvm : jvms) {
            jvm.send("hammer job " + iterations + " " + scratch);
        }
        long acquisitions = 0;
        for (ChildJvm jvm : jvms) {
            String[] words = jvm.awaitPrefixed("hammered ", REPLY).split(" ");
            assertThat(Long.parseLong(words[1])).as("violations in %s", jvm).isZero();
            acquisitions += Long.parseLong(words[0]);
        }
        assertThat(acquisitions).isPositive();
        // Every acquisition took the next token: none was handed out twice or skipped.
        assertThat(shared.getLongVolatile(LeaseChild.LAST_TOKEN_OFFSET)).isEqualTo(acquisitions);
        try (OwnerLease leases = OwnerLease.open(file, new OwnerLease.Settings(16))) {
            assertThat(
                            leases.tryAcquire("job", Pids.current(), Duration.ofMinutes(1))
                                    .orElseThrow()
                                    .token())
                    .isEqualTo(acquisitions + 1);
        }
    }

    @Test
    void twoJvmsContendingForANameWhoseSlotAThirdKeepsGivingAwayNeverBothHoldIt() throws Exception {
        Path file = dir.resolve("leases.cxc");
        Path scratch = dir.resolve("scratch");
        LeaseChild.scratch(scratch);
        int capacity = 3;
        ChildJvm churner = start("lease-new-names", file, capacity);
        churner.send("churn order- 1000000000"); // a new name every time: slots keep moving
        churner.awaitPrefixed("churning", REPLY);
        List<ChildJvm> jvms =
                List.of(start("lease-a", file, capacity), start("lease-b", file, capacity));
        for (ChildJvm jvm : jvms) {
            jvm.send("hammer job 5000 " + scratch);
        }
        long acquisitions = 0;
        for (ChildJvm jvm : jvms) {
            String[] words = jvm.awaitPrefixed("hammered ", REPLY).split(" ");
            assertThat(Long.parseLong(words[1])).as("violations in %s", jvm).isZero();
            acquisitions += Long.parseLong(words[0]);
        }
        assertThat(acquisitions).isPositive();
        try (OwnerLease leases = OwnerLease.open(file, new OwnerLease.Settings(capacity))) {
            // Names did leave their slots meanwhile (the floor rose), and job's token is above all.
            assertThat((long) leases.describe().get("tokenFloor")).isPositive();
        }
    }

    @Test
    void aSigkilledHoldersLeaseIsTakenAtOnceWithTheNextToken() {
        Path file = dir.resolve("leases.cxc");
        ChildJvm holder = start("lease-holder", file, 16);
        holder.send("acquire job 3600000");
        long token = Long.parseLong(holder.awaitPrefixed("acquired ", REPLY));
        try (OwnerLease leases = OwnerLease.open(file, new OwnerLease.Settings(16))) {
            assertThat(leases.tryAcquire("job", Pids.current(), Duration.ofMinutes(1))).isEmpty();
            holder.kill();
            // No waiting for the hour: the first attempt after the kill wins.
            Lease lease =
                    leases.tryAcquire("job", Pids.current(), Duration.ofMinutes(1)).orElseThrow();
            assertThat(lease.token()).isEqualTo(token + 1);
        }
    }

    @Test
    void aBinderKilledHalfwayThroughANameLeavesASlotTheNextBinderRepairs() {
        Path file = dir.resolve("leases.cxc");
        ChildJvm binder = start("lease-binder", file, 4);
        binder.send("hang-at INTENT_STAGED job"); // holding the bind lock, its step unsealed
        binder.awaitPrefixed("paused", REPLY);
        binder.kill();
        try (OwnerLease leases = OwnerLease.open(file, new OwnerLease.Settings(4))) {
            assertThat(leases.describe()).containsEntry("boundNames", 0);
            Lease lease =
                    leases.tryAcquire("job", Pids.current(), Duration.ofMinutes(1)).orElseThrow();
            assertThat(lease.token()).isEqualTo(1);
            assertThat(leases.describe()).containsEntry("boundNames", 1);
            // Every other slot is still free to bind.
            for (int i = 0; i < 3; i++) {
                assertThat(leases.tryAcquire("other-" + i, Pids.current(), Duration.ofMinutes(1)))
                        .isPresent();
            }
        }
    }

    @Test
    void aJvmWhoseCacheMapsANameToASlotGivenAwayNeverHoldsTheNameNowThere() {
        Path file = dir.resolve("leases.cxc");
        ChildJvm child = start("lease-stale", file, 1);
        child.send("release x");
        long x = Long.parseLong(child.awaitPrefixed("released ", REPLY)); // child caches x -> 0
        try (OwnerLease leases = OwnerLease.open(file, new OwnerLease.Settings(1))) {
            Lease y = leases.tryAcquire("y", Pids.current(), Duration.ofMinutes(1)).orElseThrow();
            child.send("acquire x 60000");
            assertThat(child.readLine(REPLY)).isEqualTo("full");
            assertThat(leases.isHeld(y)).isTrue();
            leases.release(y);
            child.send("acquire x 60000");
            long again = Long.parseLong(child.awaitPrefixed("acquired ", REPLY));
            assertThat(again).isGreaterThan(y.token()).isGreaterThan(x);
            assertThat(leases.holder("x").orElseThrow().pid()).isEqualTo(child.pid());
            assertThat(leases.holder("y")).isEmpty();
        }
    }

    @Test
    void aBinderKilledRightAfterMarkingASlotRetiringLeavesBothNamesUsable() {
        Path file = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.openOrCreate(file, new OwnerLease.Settings(1))) {
            leases.release(leases.tryAcquire("x", Pids.current(), Duration.ofMinutes(1)).get());
            ChildJvm binder = start("lease-retirer", file, 1);
            binder.send("hang-at LEASE_SLOT_RETIRING y");
            binder.awaitPrefixed("paused", REPLY);
            binder.kill();
            assertThat(leases.holder("x")).isEmpty();
            // The dead binder's retiring word is rolled back: x keeps its slot, its next token.
            Lease x = leases.tryAcquire("x", Pids.current(), Duration.ofMinutes(1)).orElseThrow();
            assertThat(x.token()).isEqualTo(2);
            leases.release(x);
            Lease y = leases.tryAcquire("y", Pids.current(), Duration.ofMinutes(1)).orElseThrow();
            assertThat(y.token()).isGreaterThan(x.token());
            assertThat(leases.describe()).containsEntry("boundNames", 1);
        }
    }

    @Test
    void aBinderKilledHalfwayThroughApplyingItsStepLeavesOneTheNextBinderReplays() {
        Path file = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.openOrCreate(file, new OwnerLease.Settings(1))) {
            for (int i = 0; i < 3; i++) {
                leases.release(leases.tryAcquire("x", Pids.current(), Duration.ofMinutes(1)).get());
            }
            ChildJvm binder = start("lease-rebinder", file, 1);
            binder.send("hang-at INTENT_HALF_APPLIED y");
            binder.awaitPrefixed("paused", REPLY);
            binder.kill();
            // Sealed: y's binding happened. The next binder replays it, then finds y bound.
            assertThat(leases.holder("x")).isEmpty();
            try (OwnerLease fresh = OwnerLease.open(file, new OwnerLease.Settings(1))) {
                Lease y =
                        fresh.tryAcquire("y", Pids.current(), Duration.ofMinutes(1)).orElseThrow();
                assertThat(y.token()).isEqualTo(4); // above x's 3: the floor came with the step
                assertThatThrownBy(
                                () -> leases.tryAcquire("x", Pids.current(), Duration.ofMinutes(1)))
                        .isInstanceOf(io.subetha.cxc.CxcCapacityException.class);
                fresh.release(y);
            }
            Lease x = leases.tryAcquire("x", Pids.current(), Duration.ofMinutes(1)).orElseThrow();
            assertThat(x.token()).isEqualTo(5);
        }
    }

    @Test
    void childrenKilledAtRandomPointsOfAcquireAndBindLeaveEveryNameUsable() {
        Path file = dir.resolve("leases.cxc");
        int names = 6;
        int capacity = names * KILLS + 4;
        SplittableRandom random = new SplittableRandom();
        try (OwnerLease leases = OwnerLease.openOrCreate(file, new OwnerLease.Settings(capacity))) {
            for (int round = 0; round < KILLS; round++) {
                String prefix = "r" + round + "-";
                try (ChildJvm child = start("lease-churn-" + round, file, capacity)) {
                    child.send("churn " + prefix + " " + names);
                    child.awaitPrefixed("churning", REPLY);
                    LockSupport.parkNanos(Duration.ofMillis(random.nextInt(1, 200)).toNanos());
                    child.kill();
                }
                List<Lease> taken = new ArrayList<>();
                for (int i = 0; i < names; i++) {
                    Optional<Lease> lease =
                            leases.tryAcquire(prefix + i, Pids.current(), Duration.ofMinutes(1));
                    assertThat(lease).as("%s%d after kill %d", prefix, i, round).isPresent();
                    taken.add(lease.get());
                }
                taken.forEach(leases::release);
            }
            // One slot per name: no name was ever bound twice.
            assertThat(leases.describe()).containsEntry("boundNames", names * KILLS);
        }
    }

    @Test
    void childrenKilledAtRandomPointsOfGivingSlotsToNewNamesLeaveEveryNameUsable() {
        Path file = dir.resolve("leases.cxc");
        int names = 6;
        int capacity = 3; // fewer slots than names: every few acquisitions retire a slot
        SplittableRandom random = new SplittableRandom();
        try (OwnerLease leases = OwnerLease.openOrCreate(file, new OwnerLease.Settings(capacity))) {
            long last = 0;
            for (int round = 0; round < KILLS; round++) {
                try (ChildJvm child = start("lease-rebind-" + round, file, capacity)) {
                    child.send("churn n- " + names);
                    child.awaitPrefixed("churning", REPLY);
                    LockSupport.parkNanos(Duration.ofMillis(random.nextInt(1, 200)).toNanos());
                    child.kill();
                }
                for (int i = 0; i < names; i++) {
                    Optional<Lease> lease =
                            leases.tryAcquire("n-" + i, Pids.current(), Duration.ofMinutes(1));
                    assertThat(lease).as("n-%d after kill %d", i, round).isPresent();
                    assertThat(leases.holder("n-" + i).orElseThrow().token())
                            .isEqualTo(lease.get().token());
                    leases.release(lease.get());
                }
                Lease mine = leases.tryAcquire("n-0", Pids.current(), Duration.ofMinutes(1)).get();
                assertThat(mine.token()).as("n-0's token after kill %d", round).isGreaterThan(last);
                last = mine.token();
                leases.release(mine);
            }
            assertThat(leases.describe()).containsEntry("boundNames", capacity);
        }
    }
}
