package io.subetha.cxc.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.liveness.HeartbeatTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command leaves everything as it found it: the directory's listing, every file's bytes,
 * modification and change times (the ctime moves on any write or metadata change), sound, damaged
 * and foreign files alike; and it creates no directory, not even one it is pointed at.
 */
class ReadOnlyTest {

    @TempDir Path temp;

    @Test
    void noCommandChangesAnythingItLooksAt() throws Exception {
        Path dir = temp.resolve("app");
        Fixtures.oneOfEveryKind(dir);
        try (SharedLeaderElection election =
                        SharedLeaderElection.TYPE.create(
                                dir.resolve("leader"), SharedLeaderElection.Settings.DEFAULTS);
                HeartbeatTable table = HeartbeatTable.create(dir.resolve("table"), 4)) {
            election.tryClaimLeadership(Fixtures.ME);
            table.register(Fixtures.ME);
            for (Fixtures.Damage damage : Fixtures.Damage.values()) {
                Path file = dir.resolve("damaged").resolve(damage.name());
                SharedLeaderElection.TYPE
                        .create(file, SharedLeaderElection.Settings.DEFAULTS)
                        .close();
                damage.applyTo(file);
            }
            Files.writeString(dir.resolve("notes.txt"), "hello");
            Files.write(dir.resolve(".leader.creating-1-ab"), new byte[3]);
            Map<String, String> before = CxcRun.tree(temp);

            List<CxcRun> runs =
                    List.of(
                            CxcRun.run("inspect", dir.toString()),
                            CxcRun.run("inspect", "--json", dir.toString()),
                            CxcRun.run("inspect", dir.resolve("leader").toString()),
                            CxcRun.run("verify", dir.toString()),
                            CxcRun.run("verify", dir.resolve("damaged/WRONG_MAGIC").toString()),
                            CxcRun.run(
                                    "watch",
                                    "--interval",
                                    "20ms",
                                    "--iterations",
                                    "2",
                                    dir.toString()),
                            CxcRun.run(
                                    "watch",
                                    "--interval",
                                    "20ms",
                                    "--iterations",
                                    "2",
                                    dir.resolve("later").toString()),
                            CxcRun.run("verify", dir.resolve("missing").toString()),
                            CxcRun.run("inspect", dir.resolve("missing/deeper").toString()));

            assertThat(runs)
                    .extracting(CxcRun::exitCode)
                    .containsExactly(1, 1, 0, 1, 1, 0, 0, 2, 2);
            assertThat(CxcRun.tree(temp)).isEqualTo(before);
        }
    }
}
