package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Leader election across real JVMs sharing one mapped file. */
class SharedLeaderElectionProcessTest {

    private static final Duration STARTUP = Duration.ofSeconds(30);
    private static final Duration REPLY = Duration.ofSeconds(20);

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    private List<ChildJvm> start(int count) {
        List<ChildJvm> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            started.add(children.add(ChildJvm.start("leader-child-" + i, LeaderChild.class)));
        }
        for (ChildJvm child : started) {
            child.awaitPrefixed("ready ", STARTUP);
        }
        return started;
    }

    private static long[] state(ChildJvm child) {
        child.send("state");
        String[] words = child.awaitPrefixed("state ", REPLY).split(" ");
        return new long[] {
            Long.parseLong(words[0]), Long.parseLong(words[1]), Long.parseLong(words[2])
        };
    }

    @Test
    void fourJvmsElectTheLowestLivePidAndAllAgree() {
        Path file = dir.resolve("leader.cxc");
        List<ChildJvm> jvms = start(4);
        for (ChildJvm jvm : jvms) {
            jvm.send("open " + file + " 20 3");
            jvm.awaitPrefixed("opened ", REPLY);
        }
        for (ChildJvm jvm : jvms) {
            jvm.send("participate 20 3");
            jvm.awaitPrefixed("participating", REPLY);
        }
        long lowest = jvms.stream().mapToLong(ChildJvm::pid).min().orElseThrow();

        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () -> {
                            for (ChildJvm jvm : jvms) {
                                assertThat(state(jvm)[0])
                                        .as("leader seen by " + jvm)
                                        .isEqualTo(lowest);
                            }
                        });
        ChildJvm leader = jvms.stream().filter(j -> j.pid() == lowest).findFirst().orElseThrow();
        leader.awaitPrefixed("gained ", REPLY);
    }

    @Test
    void killedLeaderIsReplacedThroughTheLivenessCheckLongBeforeGraceExpires() {
        Path file = dir.resolve("leader.cxc");
        List<ChildJvm> jvms = start(3);
        // Grace of 100,000 epochs at 20 ms per epoch is over half an hour: within this test a
        // takeover can only come from the liveness check noticing the dead PID.
        for (ChildJvm jvm : jvms) {
            jvm.send("open " + file + " 20 100000");
            jvm.awaitPrefixed("opened ", REPLY);
            jvm.send("participate 20 100000");
            jvm.awaitPrefixed("participating", REPLY);
        }
        ChildJvm leader = jvms.stream().min(Comparator.comparingLong(ChildJvm::pid)).orElseThrow();
        leader.awaitPrefixed("gained ", REPLY);
        long termBefore = state(leader)[1];

        long killedAt = System.nanoTime();
        leader.kill();
        List<ChildJvm> survivors = jvms.stream().filter(j -> j != leader).toList();

        ChildJvm successor =
                survivors.stream().min(Comparator.comparingLong(ChildJvm::pid)).orElseThrow();
        String[] gained = successor.awaitPrefixed("gained ", Duration.ofSeconds(20)).split(" ");
        long failoverMillis = (Long.parseLong(gained[1]) - killedAt) / 1_000_000;
        System.out.println("failover after SIGKILL: " + failoverMillis + " ms");

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> {
                            for (ChildJvm survivor : survivors) {
                                long[] s = state(survivor);
                                assertThat(s[0]).isEqualTo(successor.pid());
                                assertThat(s[1]).isGreaterThan(termBefore);
                            }
                        });
        // Far less than the grace window: the epoch did not come close to it.
        assertThat(state(successor)[2]).isLessThan(100_000);
    }

    @Test
    void noTermIsEverHeldByTwoPidsUnderContention() throws Exception {
        Path file = dir.resolve("leader.cxc");
        Path terms = dir.resolve("terms.bin");
        int slots = 1 << 20;
        try (FileChannel channel =
                FileChannel.open(terms, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            channel.truncate(0);
            channel.write(java.nio.ByteBuffer.allocate(1), slots * 8L - 1);
        }
        List<ChildJvm> jvms = start(4);
        for (ChildJvm jvm : jvms) {
            jvm.send("open " + file);
            jvm.awaitPrefixed("opened ", REPLY);
        }
        long firstTerm = state(jvms.get(0))[1]; // a new file's: the seconds since boot
        for (int i = 0; i < jvms.size(); i++) {
            jvms.get(i).send("hammer " + terms + " 2 40000 " + (1000 * (i + 1)) + " " + firstTerm);
        }
        long claims = 0;
        for (ChildJvm jvm : jvms) {
            String[] result = jvm.awaitPrefixed("hammered ", Duration.ofSeconds(120)).split(" ");
            claims += Long.parseLong(result[0]);
            assertThat(Long.parseLong(result[1])).as("split-brain terms seen by " + jvm).isZero();
        }
        long finalTerm = state(jvms.get(0))[1] - firstTerm;
        assertThat(claims).as("terms claimed and recorded").isGreaterThan(1000);
        assertThat(finalTerm).isGreaterThanOrEqualTo(claims).isLessThan(slots);
        System.out.println(
                "contention: " + claims + " recorded terms of " + finalTerm + ", 0 conflicts");
    }

    @Test
    void eightProcessesRacingOpenOrCreateShareOneFile() {
        Path file = dir.resolve("new").resolve("leader.cxc");
        List<ChildJvm> jvms = start(8);
        for (ChildJvm jvm : jvms) {
            jvm.send("open " + file); // all eight race: none of them waits for another
        }
        int created = 0;
        Set<String> keys = new HashSet<>();
        for (ChildJvm jvm : jvms) {
            String[] opened = jvm.awaitPrefixed("opened ", REPLY).split(" ", 2);
            if (Boolean.parseBoolean(opened[0])) {
                created++;
            }
            keys.add(opened[1]);
        }
        assertThat(created).as("processes that created the file").isEqualTo(1);
        assertThat(keys).as("file keys (device, inode) mapped").hasSize(1);

        for (ChildJvm jvm : jvms) {
            jvm.send("tick");
            jvm.awaitPrefixed("ticked ", REPLY);
        }
        for (ChildJvm jvm : jvms) {
            assertThat(state(jvm)[2]).as("epoch seen by " + jvm).isEqualTo(8);
        }
        assertThat(dir.resolve("new").toFile().list())
                .as("no temporary file is left behind")
                .containsExactly("leader.cxc");
        assertThat(Files.exists(file)).isTrue();
    }
}
