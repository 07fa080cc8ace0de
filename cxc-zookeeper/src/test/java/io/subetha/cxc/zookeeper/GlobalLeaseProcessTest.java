package io.subetha.cxc.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.curator.test.InstanceSpec;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GlobalLeases} on a real 3-node ensemble, with child JVMs ({@link LeaseChild}) as the
 * processes of two simulated hosts (a directory each: its own lease table and session records), all
 * contending for one name. Every holding interval each process reports is checked against every
 * other's.
 */
class GlobalLeaseProcessTest {

    static final Duration SESSION = Duration.ofMillis(Ensemble.MAX_SESSION_MILLIS);
    static final Duration CONNECTION = Duration.ofMillis(1_000);
    static final long FOREVER = 0;
    static final long IDLE = -1;

    @TempDir Path temp;

    private Ensemble ensemble;
    private final ChildJvmGroup children = new ChildJvmGroup();
    private final List<Contender> everyone = new ArrayList<>();
    private final String path = "/cxc/lease-test/leases";

    /** One child process and the lines it printed, stamped as they came. */
    static final class Contender {
        final String host;
        final ChildJvm jvm;
        final List<String> lines = new ArrayList<>();
        volatile long killedNanos = -1;

        Contender(String host, ChildJvm jvm) {
            this.host = host;
            this.jvm = jvm;
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }

        /** [token, since, until] of each holding; until is the kill or now while held. */
        List<long[]> holdings(long now) {
            List<long[]> found = new ArrayList<>();
            long[] open = null;
            for (String line : lines()) {
                String[] w = line.split(" ");
                if (w[0].equals("held")) {
                    open = new long[] {Long.parseLong(w[1]), Long.parseLong(w[2]), Long.MAX_VALUE};
                    found.add(open);
                } else if (w[0].equals("free") && open != null) {
                    open[2] = Long.parseLong(w[2]);
                    open = null;
                }
            }
            if (open != null) {
                open[2] = killedNanos >= 0 ? killedNanos : now;
            }
            return found;
        }

        /** The token this process holds now, if it says so. */
        Optional<Long> holding() {
            List<long[]> all = holdings(System.nanoTime());
            if (all.isEmpty() || !jvm.isAlive()) {
                return Optional.empty();
            }
            long[] last = all.get(all.size() - 1);
            List<String> lines = lines();
            return lines.get(lines.size() - 1).startsWith("held ")
                    ? Optional.of(last[0])
                    : Optional.empty();
        }

        @Override
        public String toString() {
            return host + "/" + jvm.pid();
        }
    }

    @BeforeEach
    void startEnsemble() throws Exception {
        ensemble = Ensemble.start(temp.resolve("zk"));
    }

    @AfterEach
    void stopEverything() throws Exception {
        try {
            children.close();
        } finally {
            ensemble.close();
        }
    }

    @Test
    void holdersOnTwoHostsNeverOverlapAndTokensRiseAcrossHosts() {
        for (int i = 0; i < 2; i++) {
            start("host-a", 3);
            start("host-b", 3);
        }
        await("holdings on both hosts")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> holdingsOn("host-a") >= 15 && holdingsOn("host-b") >= 15);
        assertNoOverlapAndRisingTokens();
    }

    @Test
    void aKilledHolderIsReplacedWithinASecondOnAnotherHostAndByAHostMate() {
        Contender first = start("host-a", FOREVER);
        start("host-a", IDLE); // sweeps host-a's session records, takes no lease
        long firstToken = awaitHolder(first, Duration.ofSeconds(30));
        Contender b1 = start("host-b", FOREVER);
        Contender b2 = start("host-b", FOREVER);

        // The only contender of host-a dies: its idle host-mate ends its session at once.
        long[] crossHost = killAndAwaitSuccessor(first, firstToken);
        assertThat(crossHost[1]).as("handover to another host, ns").isLessThan(1_000_000_000L);

        // host-b's holder dies: its host-mate deletes the dead holder's node itself.
        Contender holder = everyoneHolding().get(0);
        assertThat(List.of(b1, b2)).contains(holder);
        long[] hostMate = killAndAwaitSuccessor(holder, crossHost[0]);
        assertThat(hostMate[1]).as("handover to a host-mate, ns").isLessThan(1_000_000_000L);
        System.out.printf(
                "cxc: SIGKILLed holder replaced on another host in %.1f ms, by a host-mate in %.1f"
                        + " ms%n",
                crossHost[1] / 1e6, hostMate[1] / 1e6);
        assertNoOverlapAndRisingTokens();
    }

    @Test
    void aLostHostsNameGoesElsewhereAfterTheSessionTimeout() {
        Contender lonely = start("host-a", FOREVER);
        long token = awaitHolder(lonely, Duration.ofSeconds(30));
        start("host-b", FOREVER);
        // A whole host lost: no host-mate is left to end the session.
        long[] successor = killAndAwaitSuccessor(lonely, token);
        assertThat(successor[1])
                .as("handover after the session timeout, ns")
                .isGreaterThan(SESSION.toNanos() / 2)
                .isLessThan(SESSION.toNanos() + Duration.ofSeconds(8).toNanos());
        System.out.printf(
                "cxc: a lost host's name went elsewhere in %.0f ms%n", successor[1] / 1e6);
        assertNoOverlapAndRisingTokens();
    }

    @Test
    void holdersStopWhenTheQuorumIsLostAndNobodyHoldsUntilItIsBack() throws Exception {
        Contender holder = start("host-a", FOREVER);
        long token = awaitHolder(holder, Duration.ofSeconds(30));
        Contender other = start("host-b", FOREVER);
        List<InstanceSpec> servers = ensemble.servers();
        ensemble.kill(servers.get(0));
        ensemble.kill(servers.get(1));
        await("the holder stops")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> holder.lines().stream().anyMatch(l -> l.endsWith(" lost")));
        assertThat(other.holding()).isEmpty();
        assertThat(holder.holding()).isEmpty();

        ensemble.restart(servers.get(0));
        try {
            await("a holder again once the quorum is back")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> !everyoneHolding().isEmpty());
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + diagnostics(), e);
        }
        assertThat(everyoneHolding().get(0).holding().orElseThrow()).isGreaterThan(token);
        assertNoOverlapAndRisingTokens();
    }

    /**
     * A lease lost with the quorum is released while no server answers, so its node cannot be
     * deleted then; if the session outlives the outage, the node stays. Its holder never tries
     * again here: the name must still come free on another host once the quorum is back.
     */
    @Test
    void aNameLostWithTheQuorumComesFreeOnceItIsBackThoughItsHolderNeverTriesAgain()
            throws Exception {
        Duration session = Duration.ofMillis(Ensemble.MAX_SESSION_MILLIS);
        try (OwnerLease tableA = table("host-a");
                OwnerLease tableB = table("host-b");
                GlobalLeases a = leases(tableA, "host-a", session);
                GlobalLeases b = leases(tableB, "host-b", session)) {
            LeaseBackend.Held held = a.tryAcquire("report", Duration.ofDays(1)).orElseThrow();
            List<InstanceSpec> servers = ensemble.servers();
            ensemble.kill(servers.get(0));
            ensemble.kill(servers.get(1));
            await("the lease lost").atMost(Duration.ofSeconds(10)).until(() -> !a.isHeld(held));
            a.release(held);
            ensemble.restart(servers.get(0));
            LeaseBackend.Held next =
                    await("host-b takes the name once the quorum is back")
                            .atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(20))
                            .until(
                                    () -> b.tryAcquire("report", Duration.ofDays(1)),
                                    Optional::isPresent)
                            .orElseThrow();
            assertThat(next.token()).isGreaterThan(held.token());
            b.release(next);
        }
    }

    private OwnerLease table(String host) throws Exception {
        Path directory = java.nio.file.Files.createDirectories(temp.resolve(host));
        return OwnerLease.openOrCreate(
                directory.resolve("leases.cxc"), new OwnerLease.Settings(16));
    }

    private GlobalLeases leases(OwnerLease table, String host, Duration session) {
        return new GlobalLeases(
                table,
                new GlobalLeases.Settings(
                        ensemble.connectString(),
                        session,
                        CONNECTION,
                        path,
                        temp.resolve(host),
                        host));
    }

    // ------------------------------------------------------------------------------ helpers

    private String diagnostics() {
        StringBuilder text = new StringBuilder();
        for (Contender c : everyone) {
            text.append("\n=== ").append(c).append(" alive=").append(c.jvm.isAlive());
            text.append("\n").append(String.join("\n", c.lines()));
            text.append(c.jvm.diagnostics());
        }
        return text.toString();
    }

    private Contender start(String host, long holdMillis) {
        ChildJvm jvm =
                children.add(
                        ChildJvm.start(
                                host + "-" + (everyone.size() + 1),
                                List.of(),
                                System.getProperty("java.class.path"),
                                LeaseChild.class.getName(),
                                List.of(
                                        temp.resolve(host).toString(),
                                        ensemble.connectString(),
                                        path,
                                        host,
                                        Long.toString(SESSION.toMillis()),
                                        Long.toString(CONNECTION.toMillis()),
                                        "nightly-report",
                                        Long.toString(holdMillis == IDLE ? -1 : holdMillis)),
                                null));
        jvm.awaitPrefixed("ready ", Duration.ofSeconds(60));
        Contender contender = new Contender(host, jvm);
        everyone.add(contender);
        Fleet.collect(
                jvm,
                text -> {
                    synchronized (contender) {
                        contender.lines.add(text);
                    }
                });
        return contender;
    }

    private long holdingsOn(String host) {
        long now = System.nanoTime();
        return everyone.stream()
                .filter(c -> c.host.equals(host))
                .mapToLong(c -> c.holdings(now).size())
                .sum();
    }

    private List<Contender> everyoneHolding() {
        return everyone.stream().filter(c -> c.holding().isPresent()).toList();
    }

    private long awaitHolder(Contender contender, Duration within) {
        await(contender + " holds")
                .atMost(within)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> contender.holding().isPresent());
        return contender.holding().orElseThrow();
    }

    /** SIGKILLs the holder; answers [the successor's token, ns from the signal to its holding]. */
    private long[] killAndAwaitSuccessor(Contender holder, long token) {
        // Its holding ends when the signal is sent: a successor can only take the name once it is
        // dead, which the machine's load may let this thread see much later.
        holder.killedNanos = System.nanoTime();
        holder.jvm.process().destroyForcibly();
        holder.jvm.waitForExit(Duration.ofSeconds(30));
        long[] found = new long[2];
        await("a successor of token " + token)
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(2))
                .until(
                        () -> {
                            for (Contender c : everyone) {
                                for (long[] h : c.holdings(System.nanoTime())) {
                                    if (h[0] > token && c != holder) {
                                        found[0] = h[0];
                                        found[1] = h[1] - holder.killedNanos;
                                        return true;
                                    }
                                }
                            }
                            return false;
                        });
        return found;
    }

    private void assertNoOverlapAndRisingTokens() {
        long now = System.nanoTime();
        List<long[]> all = new ArrayList<>();
        List<String> overlaps = new ArrayList<>();
        for (Contender c : everyone) {
            all.addAll(c.holdings(now));
        }
        all.sort(Comparator.comparingLong(h -> h[1]));
        for (int i = 1; i < all.size(); i++) {
            long[] before = all.get(i - 1);
            long[] after = all.get(i);
            if (after[1] < before[2]) {
                overlaps.add("token " + before[0] + " and " + after[0]);
            }
            assertThat(after[0]).as("tokens in holding order").isGreaterThan(before[0]);
        }
        assertThat(overlaps).as("overlapping holdings").isEmpty();
    }
}
