package io.subetha.cxc.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} in three JVMs over one {@link
 * CxcLockRegistry} file: one leader; SIGKILL it and another takes over with the next token, while
 * the lock's time to live (24 days) is nowhere near passed.
 */
class LeaderInitiatorProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void oneOfThreeLeadsAndAKilledLeadersSuccessorTakesOverAtOnce() throws Exception {
        Path file = dir.resolve("locks.cxc");
        OwnerLease.TYPE.create(file, new OwnerLease.Settings(16)).close();
        List<ChildJvm> jvms = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jvms.add(
                    children.add(
                            ChildJvm.start("si-leader-" + i, LeaderChild.class, file.toString())));
        }
        for (ChildJvm jvm : jvms) {
            jvm.awaitPrefixed("ready ", WAIT);
        }
        List<CompletableFuture<String>> grants = grants(jvms);
        String[] first = first(grants).split(" ");
        long leaderPid = Long.parseLong(first[0]);
        long token = Long.parseLong(first[1]);
        ChildJvm leader = jvms.stream().filter(j -> j.pid() == leaderPid).findFirst().orElseThrow();

        // Only one leads: the others are still waiting for the lock, with no grant.
        try (OwnerLease leases = OwnerLease.open(file, new OwnerLease.Settings(16))) {
            assertThat(leases.holder(LeaderChild.ROLE).orElseThrow().pid()).isEqualTo(leaderPid);
        }
        List<ChildJvm> survivors = jvms.stream().filter(j -> j != leader).toList();
        List<CompletableFuture<String>> pending = new ArrayList<>();
        for (int i = 0; i < jvms.size(); i++) {
            if (jvms.get(i) != leader) {
                assertThat(grants.get(i)).as("a second leader while the first lives").isNotDone();
                pending.add(grants.get(i));
            }
        }
        leader.kill();
        String[] next = first(pending).split(" ");
        assertThat(Long.parseLong(next[0])).isNotEqualTo(leaderPid);
        assertThat(Long.parseLong(next[1])).isEqualTo(token + 1);
        // Still one leader: no second grant among the survivors.
        ChildJvm newLeader =
                survivors.stream()
                        .filter(j -> j.pid() == Long.parseLong(next[0]))
                        .findFirst()
                        .orElseThrow();
        try (OwnerLease leases = OwnerLease.open(file, new OwnerLease.Settings(16))) {
            assertThat(leases.holder(LeaderChild.ROLE).orElseThrow().pid())
                    .isEqualTo(newLeader.pid());
        }
    }

    /**
     * Each JVM's first {@code granted <pid> <token>} line ("pid token"), awaited in the background
     * from the start, so that no grant line is taken by one wait and missed by the next.
     */
    private static List<CompletableFuture<String>> grants(List<ChildJvm> jvms) {
        List<CompletableFuture<String>> grants = new ArrayList<>();
        for (ChildJvm jvm : jvms) {
            grants.add(
                    CompletableFuture.supplyAsync(
                            () -> jvm.awaitPrefixed("granted ", Duration.ofMinutes(3))));
        }
        return grants;
    }

    /** The first grant among {@code grants}. */
    private static String first(List<CompletableFuture<String>> grants) throws Exception {
        return (String)
                CompletableFuture.anyOf(grants.toArray(CompletableFuture[]::new))
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
}
