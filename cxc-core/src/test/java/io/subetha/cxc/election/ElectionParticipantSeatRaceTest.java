package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.process.Pids;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seat that changes between the participant's read of the leader word and its judgement of the
 * seat ({@link Point#SEAT_JUDGING}): a leader replaced meanwhile by another live one leaves the
 * seat held (a survivor that is not the heir starts no deferral), a leader that stepped down
 * meanwhile leaves it vacant (the deferral starts). PID 1 is the heir, never claiming; the leaders
 * are {@code sleep} children, killed after each test.
 */
class ElectionParticipantSeatRaceTest {

    static final long ME = Pids.current();

    @TempDir Path dir;
    final List<Process> children = new ArrayList<>();

    @AfterEach
    void killChildren() {
        children.forEach(Process::destroyForcibly);
    }

    private long liveChild() throws IOException {
        Process child = new ProcessBuilder("sleep", "300").start();
        children.add(child);
        return child.pid();
    }

    private SharedLeaderElection election() {
        var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"),
                        new SharedLeaderElection.Settings(Duration.ofHours(1), 3));
        int seat = election.registerCandidate(1, 3); // the heir, lower than us: we only defer
        assertThat(election.beatCandidate(seat, 1)).isTrue();
        return election;
    }

    /** Runs {@code change} once, the first time a thread reaches {@link Point#SEAT_JUDGING}. */
    private static Interleaving.Installed onceAtSeatJudging(Runnable change) {
        AtomicBoolean done = new AtomicBoolean();
        return Interleaving.install(
                point -> {
                    if (point == Point.SEAT_JUDGING && done.compareAndSet(false, true)) {
                        change.run();
                    }
                });
    }

    @Test
    void aLeaderReplacedByAnotherLiveOneMeanwhileLeavesTheSeatHeld() throws Exception {
        try (var election = election()) {
            long first = liveChild();
            long second = liveChild();
            assertThat(election.tryClaimLeadership(first, 3)).isTrue();
            var survivor = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            ElectionParticipant.TickOutcome outcome;
            try (var race =
                    onceAtSeatJudging(
                            () -> {
                                assertThat(election.stepDown(first)).isTrue();
                                assertThat(election.tryClaimLeadership(second, 3)).isTrue();
                            })) {
                outcome = survivor.tick();
            }
            assertThat(outcome.leader()).isFalse();
            assertThat(election.currentLeader()).hasValue(second);
            assertThat(survivor.wantsPoll()).as("a held seat: nothing to defer").isFalse();
        }
    }

    @Test
    void aLeaderThatSteppedDownMeanwhileLeavesTheSeatVacant() throws Exception {
        try (var election = election()) {
            long first = liveChild();
            assertThat(election.tryClaimLeadership(first, 3)).isTrue();
            var survivor = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            try (var race =
                    onceAtSeatJudging(() -> assertThat(election.stepDown(first)).isTrue())) {
                assertThat(survivor.tick().leader()).as("the heir's turn first").isFalse();
            }
            assertThat(election.currentLeader()).isEmpty();
            assertThat(survivor.wantsPoll()).as("vacant: the deferral started").isTrue();
        }
    }
}
