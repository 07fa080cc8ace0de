package io.subetha.cxc.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.election.SharedLeaderElection;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cxc watch}, driven for a fixed number of refreshes with its output captured. */
class WatchCommandTest {

    @TempDir Path temp;

    @Test
    void threeRefreshesAtFiftyMillisIntoAPipeAreThreePlainFrames() {
        Path dir = temp.resolve("app");
        try (SharedLeaderElection election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("leader.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            election.tryClaimLeadership(Fixtures.ME);
            long started = System.nanoTime();

            CxcRun run =
                    CxcRun.run("watch", "--interval", "50ms", "--iterations", "3", dir.toString());

            long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(run.out()).doesNotContain("\033");
            assertThat(
                            Pattern.compile(
                                            "(?m)^cxc watch "
                                                    + Pattern.quote(dir.toString())
                                                    + "  every 50ms  ")
                                    .matcher(run.out())
                                    .results()
                                    .count())
                    .isEqualTo(3);
            for (int refresh = 1; refresh <= 3; refresh++) {
                assertThat(run.out()).contains("refresh " + refresh + " of 3\n");
            }
            assertThat(java.util.Arrays.stream(run.out().split("(?m)^cxc watch ", -1)).skip(1))
                    .hasSize(3)
                    .allSatisfy(
                            frame ->
                                    assertThat(frame)
                                            .contains("leader.cxc  leader-election")
                                            .containsPattern(
                                                    "(?m)^  leaderPid +" + Fixtures.ME + "$")
                                            .contains("1 file: 1 sound, 0 with problems"));
            assertThat(elapsedMillis).isGreaterThanOrEqualTo(100);
        }
    }

    @Test
    void onATerminalEachRefreshClearsTheScreen() {
        Path dir = temp.resolve("app");
        SharedLeaderElection.TYPE
                .create(dir.resolve("leader.cxc"), SharedLeaderElection.Settings.DEFAULTS)
                .close();

        CxcRun run =
                CxcRun.run(
                        true, "watch", "--interval", "50ms", "--iterations", "3", dir.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.out().split(Pattern.quote(WatchCommand.CLEAR_SCREEN), -1)).hasSize(4);
        assertThat(run.out())
                .startsWith(WatchCommand.CLEAR_SCREEN + "cxc watch ")
                .contains("(Ctrl-C quits)");
    }

    @Test
    void aDirectoryThatDoesNotExistYetIsWaitedForAndNeverCreated() {
        Path missing = temp.resolve("not-started");

        CxcRun run =
                CxcRun.run("watch", "--interval", "20ms", "--iterations", "2", missing.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains(missing + " does not exist (yet): waiting for it");
        assertThat(missing).doesNotExist();
    }
}
