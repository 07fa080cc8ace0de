package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import io.subetha.cxc.wake.Doorbell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A barrier's doorbell across real JVMs: a participant asleep in another process is woken by the
 * arrival that completes its epoch, and one killed while asleep leaves nothing that hangs the
 * others (its announcement is taken by the next ring, its socket deleted by the next waiter's bind,
 * its participant slot claimed by PID and start time); a completing arrival killed between taking
 * the announcement and ringing costs the sleeper one bounded look.
 */
class BarrierDoorbellProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final String HOUR_MS = "3600000";

    @TempDir Path dir;
    Path path;
    EpochBarrier here;
    final ChildJvmGroup children = new ChildJvmGroup();

    @BeforeEach
    void create() {
        path = dir.resolve("barrier.cxc");
        // A minute's grace: only a kill (the PID probe) drops a participant here, never a stall.
        here =
                EpochBarrier.TYPE.create(
                        path, new EpochBarrier.Settings(2, Duration.ofSeconds(1), 60));
    }

    @AfterEach
    void closeAll() {
        children.close();
        here.close();
    }

    ChildJvm participant(String name) {
        ChildJvm child =
                children.add(
                        ChildJvm.start(name, LivenessChild.class)
                                .eventsAre(
                                        line ->
                                                line.startsWith("released")
                                                        || line.startsWith("failed")
                                                        || line.startsWith("frozen")));
        child.ask("barrier-open " + path + " 2");
        child.ask("join");
        return child;
    }

    int sleepingWaiters() {
        return (Integer) here.describe().get("sleepingWaiters");
    }

    List<Path> sockets() throws IOException {
        Path wake = Doorbell.socketDirectory(path);
        if (!Files.isDirectory(wake)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(wake)) {
            return files.toList();
        }
    }

    @Test
    void aParticipantAsleepInAnotherJvmIsWokenByTheCompletingArrival() {
        int epoch = here.join();
        ChildJvm other = participant("sleeper");
        for (int round = 0; round < 3; round++) {
            other.ask("await-epoch " + (epoch + round) + " " + HOUR_MS);
            await().atMost(STEP).until(() -> sleepingWaiters() == 1);
            here.await(epoch + round);
            assertThat(other.awaitPrefixed("released ", STEP))
                    .isEqualTo(Integer.toString(epoch + round + 1));
        }
    }

    @Test
    void aParticipantKilledWhileAsleepLeavesNoHang() throws Exception {
        int epoch = here.join();
        ChildJvm killed = participant("killed-sleeper");
        killed.ask("await-epoch " + epoch + " " + HOUR_MS);
        await().atMost(STEP).until(() -> sleepingWaiters() == 1);
        List<Path> left = sockets();
        assertThat(left).hasSize(1);
        killed.kill();

        // It had arrived: the epoch completes, and the ring to its dead socket is dropped.
        here.await(epoch, STEP);
        assertThat(sleepingWaiters()).as("its announcement taken by the ring").isZero();

        // Its participant slot goes to the next, by its PID and start time: no one waits for it.
        ChildJvm next = participant("next-sleeper");
        next.ask("await-epoch " + (epoch + 1) + " " + HOUR_MS);
        await().atMost(STEP).until(() -> sleepingWaiters() == 1);
        assertThat(left.get(0)).as("deleted by the next waiter's bind").doesNotExist();
        here.await(epoch + 1, STEP);
        assertThat(next.awaitPrefixed("released ", STEP)).isEqualTo(Integer.toString(epoch + 2));
        assertThat(here.participants())
                .extracting(BarrierParticipant::pid)
                .containsExactlyInAnyOrder(ProcessHandle.current().pid(), next.pid());
    }

    @Test
    void aCompletingArrivalKilledBetweenItsTakeAndItsRingCostsTheSleeperOneLook() {
        int epoch = here.join();
        ChildJvm ringer = participant("frozen-ringer");
        ringer.ask("freeze-ring");
        // The sleeper is announced but for the moments between two sleeps; an arrival that lands
        // in one takes nothing and does not freeze, and the next epoch tries again.
        for (int round = 0; ; round++) {
            int at = epoch + round;
            CompletableFuture<Void> sleeping =
                    CompletableFuture.runAsync(() -> here.await(at, Duration.ofHours(1)));
            await().atMost(STEP).until(() -> sleepingWaiters() == 1);
            ringer.ask("await-epoch " + at + " " + HOUR_MS);
            String said =
                    ringer.awaitLine(
                            line -> line.startsWith("frozen ") || line.startsWith("released "),
                            STEP);
            if (said.startsWith("released ")) {
                assertThat(sleeping).succeedsWithin(STEP);
                assertThat(round)
                        .as("arrivals that found the sleeper between sleeps")
                        .isLessThan(20);
                continue;
            }
            assertThat(said).isEqualTo("frozen DOORBELL_TAKEN");
            assertThat(sleepingWaiters()).as("taken by the frozen ringer").isZero();
            ringer.kill();

            assertThat(sleeping).succeedsWithin(STEP);
            assertThat(here.currentEpoch()).isEqualTo(at + 1);
            return;
        }
    }
}
