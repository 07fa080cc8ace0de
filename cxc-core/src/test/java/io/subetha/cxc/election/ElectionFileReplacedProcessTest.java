package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The election file (or its directory) deleted under a running leader, and a new process creating a
 * new file at the path: the old leader stops leading its orphaned inode and re-joins the new file,
 * so there are never two leaders (without the participant's check of its path, the old leader kept
 * leading the orphan while the newcomer led the new file).
 */
class ElectionFileReplacedProcessTest {

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
    void aLeaderWhoseFileIsDeletedStopsLeadingAndRejoinsTheNewFileWithAHigherTerm() {
        Path file = dir.resolve("leader.cxc");
        ChildJvm first = participant("first", file);
        long oldTerm = Long.parseLong(first.awaitPrefixed("gained ", REPLY).split(" ")[0]);

        deleteRecursively(file);
        ChildJvm second = participant("second", file); // creates a new file at the path

        first.awaitPrefixed("lost " + oldTerm, REPLY);
        assertOneLeaderOnOneFile(first, second, oldTerm);
    }

    @Test
    void aLeaderWhoseDirectoryIsRemovedAndRecreatedStopsLeadingAndRejoins() throws Exception {
        Path directory = dir.resolve("cxc");
        Path file = directory.resolve("leader.cxc");
        ChildJvm first = participant("first", file);
        long oldTerm = Long.parseLong(first.awaitPrefixed("gained ", REPLY).split(" ")[0]);

        deleteRecursively(directory); // rm -rf cxc.directory
        Files.createDirectory(directory);
        ChildJvm second = participant("second", file);

        first.awaitPrefixed("lost " + oldTerm, REPLY);
        assertOneLeaderOnOneFile(first, second, oldTerm);
    }

    /**
     * The election file replaced many times in quick succession under running participants, the way
     * an operator's script or the chaos harness does it (a new file beside it, the old one deleted,
     * the new one moved over the path), some replacements landing while participants are still
     * re-joining the previous one. Afterwards every participant must run on the file at the path,
     * one leading.
     *
     * <p>Before participants judged the path by the file's incarnation, one stayed on an orphan for
     * good (and would have led it beside the real leader): ext4 gives a new file the inode number
     * of one just deleted, so the file key at the path matched the key it had recorded. (The
     * 1,000-handover chaos run once ended with the file at the path retired and every open refused;
     * such a file is now revived on open: {@code ElectionParticipantTest}.)
     */
    @Test
    void afterAStormOfReplacementsOneParticipantLeadsTheFileAtThePath() throws Exception {
        Path file = dir.resolve("leader.cxc");
        List<ChildJvm> participants = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            participants.add(participant("storm-" + i, file, 5));
        }
        SplittableRandom random = new SplittableRandom(42);
        Path fresh = file.resolveSibling("leader.cxc.new");
        for (int i = 0; i < REPLACEMENTS; i++) {
            try (SharedLeaderElection created =
                    SharedLeaderElection.TYPE.create(
                            fresh, new SharedLeaderElection.Settings(Duration.ofMillis(5), 3))) {
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
        return participant(name, file, 20);
    }

    private ChildJvm participant(String name, Path file, long tickMillis) {
        ChildJvm child = children.add(ChildJvm.start("replaced-" + name, LeaderChild.class));
        child.awaitPrefixed("ready ", STARTUP);
        child.send("open " + file + " " + tickMillis + " 3");
        child.awaitPrefixed("opened ", REPLY);
        child.send("participate " + tickMillis + " 3");
        child.awaitPrefixed("participating", REPLY);
        return child;
    }

    /** Both on the file now at the path, the lowest PID alone leading, under a higher term. */
    private static void assertOneLeaderOnOneFile(ChildJvm first, ChildJvm second, long oldTerm) {
        ChildJvm lowest =
                Stream.of(first, second).min(Comparator.comparingLong(ChildJvm::pid)).get();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> {
                            String[] a = leads(first);
                            String[] b = leads(second);
                            assertThat(a[2]).as("file key of each").isEqualTo(b[2]);
                            int leaders = 0;
                            for (ChildJvm child : new ChildJvm[] {first, second}) {
                                String[] l = child == first ? a : b;
                                assertThat(l[0])
                                        .as("the participant's and the opened handle's answer")
                                        .isEqualTo(l[1]);
                                if (Boolean.parseBoolean(l[0])) {
                                    leaders++;
                                    assertThat(child).isSameAs(lowest);
                                }
                            }
                            assertThat(leaders).as("leaders").isEqualTo(1);
                            assertThat(state(first)[1]).isGreaterThan(oldTerm);
                            assertThat(state(second)[0]).isEqualTo(lowest.pid());
                        });
    }

    private static String[] leads(ChildJvm child) {
        child.send("leads");
        return child.awaitPrefixed("leads ", REPLY).split(" ");
    }

    private static long[] state(ChildJvm child) {
        child.send("state");
        String[] words = child.awaitPrefixed("state ", REPLY).split(" ");
        return new long[] {Long.parseLong(words[0]), Long.parseLong(words[1])};
    }

    private static void deleteRecursively(Path path) {
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
