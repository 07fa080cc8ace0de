package io.subetha.cxc.ownership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10, item 1: the election file deleted under a running leader, and a new process creating a
 * new one, must not give two leaders: the old leader stops leading at once, re-joins the file now
 * at the path, and terms keep rising. Before the fix the old leader kept leading its unlinked inode
 * forever while the newcomer led term 1 of the new file.
 */
class ElectionFileReplacedProcessTest {

    private static final Duration STARTUP = Duration.ofSeconds(30);
    private static final Duration REPLY = Duration.ofSeconds(20);

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    private ChildJvm participant(String name, Path file) {
        ChildJvm child = children.add(ChildJvm.start(name, LeaderChild.class));
        child.awaitPrefixed("ready ", STARTUP);
        child.send("open " + file);
        child.awaitPrefixed("opened ", REPLY);
        child.send("participate 50 3");
        child.awaitPrefixed("participating", REPLY);
        return child;
    }

    private static long[] state(ChildJvm child) {
        child.send("state");
        String[] words = child.awaitPrefixed("state ", REPLY).split(" ");
        return new long[] {Long.parseLong(words[0]), Long.parseLong(words[1])};
    }

    @Test
    void aDeletedFileEndsTheOldLeadershipAtOnceAndTermsKeepRising() throws Exception {
        Path file = dir.resolve("leader.cxc");
        ChildJvm a = participant("a", file);
        long oldTerm = Long.parseLong(a.awaitPrefixed("gained ", REPLY).split(" ")[0]);

        Files.delete(file); // a tmp cleaner, an operator, RemoveIPC
        // A notices on its next tick and stops leading the unlinked file.
        assertThat(a.awaitPrefixed("lost ", Duration.ofSeconds(5))).isEqualTo("" + oldTerm);

        ChildJvm b = participant("b", file);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () -> {
                            long[] seenByA = state(a); // A's handle forwards to the new file
                            long[] seenByB = state(b);
                            assertThat(seenByA).containsExactly(seenByB);
                            assertThat(seenByB[0]).isIn(a.pid(), b.pid());
                            assertThat(seenByB[1]).isGreaterThan(oldTerm);
                        });
        try (SharedLeaderElection atPath = SharedLeaderElection.open(file)) {
            assertThat(atPath.electionTerm()).isGreaterThan(oldTerm);
        }
    }
}
