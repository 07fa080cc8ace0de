package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The settings a participant runs at and what it says about them: the file's, a warning naming both
 * when they differ (and none when they agree, a sub-millisecond tick counting as the 1 ms it is
 * raised to), its arguments checked and named, and a participant built on a retired handle running
 * on the handle that replaced it. Warnings are read from the logger the participant logs to.
 */
class ElectionParticipantSettingsTest {

    static final long ME = Pids.current();

    @TempDir Path dir;

    @RegisterExtension final LogCapture log = new LogCapture(ElectionParticipant.class);
    final List<String> warnings = log.messages;

    private SharedLeaderElection election(String name, Duration tick, long grace) {
        return SharedLeaderElection.TYPE.create(
                dir.resolve(name), new SharedLeaderElection.Settings(tick, grace));
    }

    /** Ticks once more so that anything queued before is logged, then waits for that. */
    private void drainWarnings(ElectionParticipant p) {
        p.tick();
        // The warning thread runs its tasks in order: a marker logged after them proves them done.
        int before = warnings.size();
        try (var marker =
                election("marker-" + System.nanoTime() + ".cxc", Duration.ofMillis(7), 1)) {
            new ElectionParticipant(marker, ME, 2, Duration.ofMillis(7)).tick();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> warnings.size() > before);
    }

    @Test
    void settingsThatDifferFromTheFilesAreWarnedAboutNamingBoth() {
        try (var election = election("l.cxc", Duration.ofMillis(20), 4)) {
            var p = new ElectionParticipant(election, ME, 9, Duration.ofMillis(500));
            p.tick();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> warnings.stream().anyMatch(w -> w.contains("l.cxc was created")));
            String warning =
                    warnings.stream()
                            .filter(w -> w.contains("l.cxc was created"))
                            .findFirst()
                            .get();
            assertThat(warning)
                    .contains("was created with tick interval 20 ms and grace 4 epochs")
                    .contains("this process asked for 500 ms and 9")
                    .contains("cxc.leader.tick-interval, cxc.leader.grace-epochs");
            assertThat(p.tickInterval()).isEqualTo(Duration.ofMillis(20));
            assertThat(p.graceEpochs()).isEqualTo(4);
        }
    }

    @Test
    void settingsThatAgreeWithTheFilesAreNotWarnedAboutASubMillisecondTickCountingAsOne() {
        try (var election = election("agree.cxc", Duration.ofMillis(1), 3)) {
            var p = new ElectionParticipant(election, ME, 3, Duration.ofNanos(500_000));
            drainWarnings(p);
            assertThat(warnings).noneMatch(w -> w.contains("agree.cxc"));
            assertThat(p.tickInterval()).isEqualTo(Duration.ofMillis(1));
        }
    }

    @Test
    void aGraceOfZeroIsAcceptedAndItsArgumentsAreCheckedNamingEach() {
        try (var election = election("args.cxc", Duration.ofMillis(50), 0)) {
            var p = new ElectionParticipant(election, ME, 0, Duration.ofMillis(50));
            assertThat(p.graceEpochs()).isZero();
            assertThat(p.pid()).isEqualTo(ME);
            assertThat(p.preemption()).isEqualTo(Preemption.LOWEST_PID);
            assertThat(p.election()).isSameAs(election);
            assertThatThrownBy(
                            () -> new ElectionParticipant(election, ME, -1, Duration.ofMillis(1)))
                    .hasMessage("graceEpochs must be 0 or more, got -1");
            assertThatThrownBy(
                            () -> new ElectionParticipant(election, ME, 3, Duration.ofMillis(-1)))
                    .hasMessage("tickInterval must be positive, got PT-0.001S");
            ElectionParticipant.Opener opener = (path, settings) -> election;
            assertThatThrownBy(
                            () ->
                                    new ElectionParticipant(
                                            null,
                                            ME,
                                            3,
                                            Duration.ofMillis(1),
                                            Preemption.NONE,
                                            opener))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessage("election");
            assertThatThrownBy(
                            () ->
                                    new ElectionParticipant(
                                            election, ME, 3, Duration.ofMillis(1), null, opener))
                    .hasMessage("preemption");
            assertThatThrownBy(
                            () ->
                                    new ElectionParticipant(
                                            election,
                                            ME,
                                            3,
                                            Duration.ofMillis(1),
                                            Preemption.NONE,
                                            null))
                    .hasMessage("opener");
            var stable =
                    new ElectionParticipant(
                            election, ME, 0, Duration.ofMillis(50), Preemption.NONE, opener);
            assertThat(stable.preemption()).isEqualTo(Preemption.NONE);
        }
    }

    @Test
    void aParticipantBuiltOnARetiredHandleRunsOnTheHandleThatReplacedIt() {
        try (var old = election("old.cxc", Duration.ofMillis(50), 3);
                var next = election("next.cxc", Duration.ofMillis(30), 2)) {
            old.retire(ME, false);
            old.forwardTo(next);
            var p = new ElectionParticipant(old, ME, 2, Duration.ofMillis(30));
            assertThat(p.election()).isSameAs(next);
            assertThat(p.tickInterval()).isEqualTo(Duration.ofMillis(30));
            assertThat(p.graceEpochs()).isEqualTo(2);
            assertThat(p.isLeader()).isFalse();
            assertThat(next.tryClaimLeadership(ME, 2)).isTrue();
            assertThat(p.isLeader()).as("asks the handle it runs on").isTrue();
        }
    }
}
