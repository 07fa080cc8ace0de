package io.subetha.cxc.ownership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The election file replaced many times in quick succession under running participants, the way an
 * operator's script or the chaos harness does it (a new file beside it, the old one deleted, the
 * new one moved over the path), some replacements landing while participants are still re-joining
 * the previous one. Afterwards every participant must run on the file at the path, one leading.
 *
 * <p>Before participants judged the path by the file's incarnation, one stayed on an orphan for
 * good (and would have led it beside the real leader): ext4 gives a new file the inode number of
 * one just deleted, so the file key at the path matched the key it had recorded. And a participant
 * that judged by a key read by path a moment late could retire the file everyone was using, which
 * then refused every open: the 1,000-handover chaos run ended that way.
 */
class ElectionFileReplaceStormProcessTest {

    private static final Duration STARTUP = Duration.ofSeconds(30);
    private static final Duration REPLY = Duration.ofSeconds(20);
    private static final int REPLACEMENTS = Integer.getInteger("cxc.replaceStorm", 40);

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void afterAStormOfReplacementsOneParticipantLeadsTheFileAtThePath() throws Exception {
        Path file = dir.resolve("leader.cxc");
        List<ChildJvm> participants = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            participants.add(participant("p" + i, file));
        }
        SplittableRandom random = new SplittableRandom(42);
        Path fresh = file.resolveSibling("leader.cxc.new");
        for (int i = 0; i < REPLACEMENTS; i++) {
            try (SharedLeaderElection created =
                    SharedLeaderElection.create(
                            fresh,
                            new SharedLeaderElection.Settings(Duration.ofMillis(5), 3),
                            CxcFileOptions.defaults())) {
                created.leaderWord();
            }
            Files.delete(file);
            Files.move(fresh, file, StandardCopyOption.REPLACE_EXISTING);
            // Paced at random around the tick, so replacements land both between the
            // participants' checks and while they re-join the previous file.
            LockSupport.parkNanos(random.nextLong(0, 12_000_000));
        }

        await().atMost(Duration.ofSeconds(45))
                .untilAsserted(
                        () -> {
                            try (SharedLeaderElection atPath = SharedLeaderElection.open(file)) {
                                long leader = atPath.snapshot().leaderPid();
                                assertThat(leader)
                                        .as("the leader on the file at the path")
                                        .isNotZero();
                                int leaders = 0;
                                for (ChildJvm p : participants) {
                                    String[] l = leads(p);
                                    assertThat(Long.parseLong(l[3]))
                                            .as("the incarnation each participant runs on")
                                            .isEqualTo(atPath.incarnation());
                                    if (Boolean.parseBoolean(l[0])) {
                                        leaders++;
                                        assertThat(p.pid()).isEqualTo(leader);
                                    }
                                }
                                assertThat(leaders).as("leaders").isEqualTo(1);
                            }
                        });
    }

    private ChildJvm participant(String name, Path file) {
        ChildJvm child = children.add(ChildJvm.start("storm-" + name, LeaderChild.class));
        child.awaitPrefixed("ready ", STARTUP);
        child.send("open " + file + " 5 3");
        child.awaitPrefixed("opened ", REPLY);
        child.send("participate 5 3");
        child.awaitPrefixed("participating", REPLY);
        return child;
    }

    private static String[] leads(ChildJvm child) {
        child.send("leads");
        return child.awaitPrefixed("leads ", REPLY).split(" ");
    }
}
