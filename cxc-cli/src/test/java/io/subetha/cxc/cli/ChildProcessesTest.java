package io.subetha.cxc.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.election.LeaderChild;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.liveness.LivenessChild;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code cxc inspect} on files other processes are using: an election participant and a heartbeat
 * participant in child JVMs (cxc-core's {@code LeaderChild} and {@code LivenessChild}, which run
 * the same participant loops as the starter). The leader and the live slot are the children's; once
 * they are SIGKILLed, the probes say so at once.
 */
class ChildProcessesTest {

    private static final Duration STARTUP = Duration.ofSeconds(60);

    @TempDir Path temp;

    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void theRunningLeaderAndParticipantAreShownAliveAndThenDead() throws Exception {
        Path dir = temp.resolve("app");
        Path table = dir.resolve("participants.heartbeat");
        HeartbeatTable.TYPE.create(table, new HeartbeatTable.Settings(8)).close();

        ChildJvm leader = children.add(ChildJvm.start("leader", LeaderChild.class));
        leader.awaitPrefixed("ready ", STARTUP);
        leader.send("open " + dir.resolve("leader.cxc"));
        leader.awaitPrefixed("opened ", STARTUP);
        leader.send("participate 50 3");
        leader.awaitPrefixed("gained ", STARTUP);

        ChildJvm participant = children.add(ChildJvm.start("participant", LivenessChild.class));
        participant.send("heartbeat-open " + table + " 8");
        assertThat(participant.readLine(STARTUP)).isEqualTo("ok");
        participant.send("register");
        assertThat(participant.readLine(STARTUP)).isEqualTo("slot 0");
        participant.send("beat-loop 50");
        assertThat(participant.readLine(STARTUP)).isEqualTo("ok");

        CxcRun table1 = CxcRun.run("inspect", dir.toString());
        assertThat(table1.exitCode()).as(table1.toString()).isZero();
        assertThat(table1.out())
                .contains("leader.cxc  leader-election  layout 3  creator pid " + leader.pid())
                .containsPattern("(?m)^  leaderPid +" + leader.pid() + "$")
                .containsPattern("(?m)^  leaderStatus +ALIVE$")
                .containsPattern("(?m)^    0 +" + participant.pid() + " +1 .* LIVE +true$");

        JsonNode files = json(dir);
        assertThat(files.get(0).get("state").get("leaderPid").asLong()).isEqualTo(leader.pid());
        assertThat(files.get(0).get("state").get("leaderStatus").asString()).isEqualTo("ALIVE");
        assertThat(files.get(0).get("state").get("term").asLong()).isPositive();
        JsonNode slot = files.get(1).get("state").get("slots").get(0);
        assertThat(slot.get("pid").asLong()).isEqualTo(participant.pid());
        assertThat(slot.get("status").asString()).isEqualTo("LIVE");

        leader.kill();
        participant.kill();

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> {
                            JsonNode after = json(dir);
                            assertThat(after.get(0).get("state").get("leaderPid").asLong())
                                    .isEqualTo(leader.pid());
                            assertThat(after.get(0).get("state").get("leaderStatus").asString())
                                    .isEqualTo("DEAD");
                            JsonNode dead = after.get(1).get("state").get("slots").get(0);
                            assertThat(dead.get("status").asString()).isEqualTo("DEAD");
                            assertThat(dead.get("alive").asBoolean()).isFalse();
                        });
    }

    private static JsonNode json(Path dir) {
        CxcRun run = CxcRun.run("inspect", "--json", dir.toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        return InspectCommandTest.JSON.readTree(run.out()).get("files");
    }
}
