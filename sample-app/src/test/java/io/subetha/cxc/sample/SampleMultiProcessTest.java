package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.election.LeaderElectionDescriptor;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongPredicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Three sample JVMs share one cxc directory: exactly one leads and each lists all three as live
 * participants; SIGKILL the leader and a survivor takes over, and each survivor lists two live
 * participants and the killed one not alive; stop the new leader gracefully and the last one takes
 * over within about a tick; the term only rises. Failover is timed twice: in the election file
 * (this test maps it too, as an observer) and over HTTP, as an operator would see it.
 */
class SampleMultiProcessTest {

    private static final Duration STARTUP = Duration.ofSeconds(100);

    /** Generous bounds for a loaded 2-core machine; the measured times are printed. */
    private static final long CRASH_FAILOVER_BOUND_MILLIS = 5_000;

    private static final long STEP_DOWN_HANDOVER_BOUND_MILLIS = 1_000;

    @TempDir Path temp;

    private final ChildJvmGroup children = new ChildJvmGroup();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final List<Long> termsSeen = new ArrayList<>();

    @AfterEach
    void stopChildren() {
        children.close();
    }

    @Test
    void oneLeadsAKilledLeaderIsReplacedAndAStoppedOneHandsOver() throws Exception {
        Path directory = temp.resolve("cxc");
        Map<ChildJvm, Integer> ports = new HashMap<>();
        for (int i = 1; i <= 3; i++) {
            int port = SampleCopies.freePort();
            ChildJvm child =
                    SampleCopies.start(
                            children,
                            "sample-" + i,
                            port,
                            directory,
                            "--sample.bookkeeping.interval=500ms");
            ports.put(child, port);
        }
        for (ChildJvm child : ports.keySet()) {
            await("/actuator/cxc of " + child)
                    .atMost(STARTUP)
                    .pollInterval(Duration.ofMillis(250))
                    .failFast(() -> !child.isAlive())
                    .until(() -> cxc(ports.get(child)) != null);
        }

        // Exactly one leads, and every instance agrees on which.
        ChildJvm first = awaitOneLeader(ports);
        long firstTerm = cxc(ports.get(first)).get("leader").get("term").asLong();
        // Each lists all three as live participants, the leader marked.
        awaitParticipants(ports, ports.keySet(), List.of(), first);
        awaitBookkeeping(first, firstTerm);

        try (SharedLeaderElection election = SharedLeaderElection.open(leaderFile(directory))) {
            // SIGKILL the leader: a survivor finds its process dead on its next tick.
            ports.keySet().forEach(c -> assertThat(c.isAlive()).isTrue());
            Map<ChildJvm, Integer> survivors = new HashMap<>(ports);
            survivors.remove(first);
            long killed = System.nanoTime();
            first.process().destroyForcibly();
            long claimedNanos =
                    awaitLeaderWord(
                            election, pid -> pid != first.pid() && pid != 0, killed, "crash");
            long selfNanos = awaitSelfOverHttp(survivors, killed);
            first.kill(); // reaped
            ChildJvm second = awaitOneLeader(survivors);
            long secondTerm = cxc(survivors.get(second)).get("leader").get("term").asLong();
            // The killed one never unregistered: its slot stays, listed as not alive.
            awaitParticipants(survivors, survivors.keySet(), List.of(first), second);
            assertThat(secondTerm).isGreaterThan(firstTerm);
            awaitBookkeeping(second, secondTerm);
            report(
                    "crash failover (SIGKILL of the leader)",
                    "to the successor's claim in the file",
                    claimedNanos - killed,
                    "to a survivor's /actuator/cxc saying self=true",
                    selfNanos - killed);
            assertThat(millis(claimedNanos - killed)).isLessThan(CRASH_FAILOVER_BOUND_MILLIS);
            assertThat(millis(selfNanos - killed)).isLessThan(CRASH_FAILOVER_BOUND_MILLIS);

            // Graceful stop of the new leader: it steps down first, the last one claims at once.
            Map<ChildJvm, Integer> last = new HashMap<>(survivors);
            last.remove(second);
            ChildJvm third = last.keySet().iterator().next();
            long stopping = System.nanoTime();
            second.process().destroy(); // SIGTERM
            long steppedDown = awaitLeaderWord(election, pid -> pid != second.pid(), stopping, "");
            long handedOver =
                    awaitLeaderWord(election, pid -> pid == third.pid(), stopping, "stop");
            long thirdSelf = awaitSelfOverHttp(last, stopping);
            assertThat(second.stop(Duration.ofSeconds(30))).isNotEqualTo(137);
            long thirdTerm = cxc(last.get(third)).get("leader").get("term").asLong();
            assertThat(thirdTerm).isGreaterThan(secondTerm);
            awaitBookkeeping(third, thirdTerm);
            report(
                    "graceful hand-over (SIGTERM of the leader)",
                    "from its step-down to the successor's claim",
                    handedOver - steppedDown,
                    "from SIGTERM to the successor's /actuator/cxc saying self=true",
                    thirdSelf - stopping);
            assertThat(millis(handedOver - steppedDown))
                    .isLessThan(STEP_DOWN_HANDOVER_BOUND_MILLIS);
        }

        // The term never went down, in any answer any instance gave.
        assertThat(termsSeen).isSorted();
    }

    private ChildJvm awaitOneLeader(Map<ChildJvm, Integer> ports) {
        ChildJvm[] leader = new ChildJvm[1];
        await("exactly one leader among " + ports.keySet())
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> {
                            List<ChildJvm> selves = new ArrayList<>();
                            List<Long> leaders = new ArrayList<>();
                            for (Map.Entry<ChildJvm, Integer> entry : ports.entrySet()) {
                                JsonNode state = cxc(entry.getValue());
                                if (state == null) {
                                    return false;
                                }
                                leaders.add(state.get("leader").get("pid").asLong());
                                if (state.get("leader").get("self").asBoolean()) {
                                    selves.add(entry.getKey());
                                }
                            }
                            if (selves.size() != 1
                                    || leaders.stream().anyMatch(p -> p != selves.get(0).pid())) {
                                return false;
                            }
                            leader[0] = selves.get(0);
                            return true;
                        });
        return leader[0];
    }

    /**
     * Awaits every instance in {@code ports} listing exactly {@code live} as live participants,
     * each of {@code dead} as a participant not alive, and {@code leader} alone as the leader.
     */
    private void awaitParticipants(
            Map<ChildJvm, Integer> ports,
            Collection<ChildJvm> live,
            Collection<ChildJvm> dead,
            ChildJvm leader) {
        Set<Long> livePids = live.stream().map(ChildJvm::pid).collect(Collectors.toSet());
        Set<Long> deadPids = dead.stream().map(ChildJvm::pid).collect(Collectors.toSet());
        for (Map.Entry<ChildJvm, Integer> entry : ports.entrySet()) {
            await("participants listed by " + entry.getKey())
                    .atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(
                            () -> {
                                JsonNode state = cxc(entry.getValue());
                                assertThat(state).isNotNull();
                                Set<Long> alive = new HashSet<>();
                                Set<Long> notAlive = new HashSet<>();
                                Set<Long> leaders = new HashSet<>();
                                for (JsonNode participant : state.get("participants")) {
                                    long pid = participant.get("pid").asLong();
                                    (participant.get("alive").asBoolean() ? alive : notAlive)
                                            .add(pid);
                                    if (participant.get("leader").asBoolean()) {
                                        leaders.add(pid);
                                    }
                                    assertThat(participant.get("lagEpochs").asLong())
                                            .isNotNegative();
                                    assertThat(participant.has("slot")).isTrue();
                                    assertThat(participant.has("lastBeat")).isTrue();
                                }
                                assertThat(alive).isEqualTo(livePids);
                                assertThat(notAlive).containsAll(deadPids);
                                assertThat(leaders).containsExactly(leader.pid());
                            });
        }
    }

    /** Awaits the {@code @LeaderOnly} bookkeeping job's run by {@code child} under {@code term}. */
    private static void awaitBookkeeping(ChildJvm child, long term) {
        String run = " by pid " + child.pid() + " in term " + term;
        child.awaitLine(
                line -> line.contains("bookkeeping run #") && line.endsWith(run),
                Duration.ofSeconds(15));
    }

    /** Spins on the mapped leader word (a volatile read) until {@code leaderPid} matches. */
    private long awaitLeaderWord(
            SharedLeaderElection election, LongPredicate leaderPid, long since, String what) {
        long deadline = since + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            long word = election.leaderWord();
            if (leaderPid.test(LeaderElectionDescriptor.leaderPid(word))) {
                return System.nanoTime();
            }
            LockSupport.parkNanos(100_000);
        }
        throw new AssertionError("no " + what + " hand-over within 30 s: " + election);
    }

    private long awaitSelfOverHttp(Map<ChildJvm, Integer> ports, long since) throws Exception {
        long deadline = since + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            for (int port : ports.values()) {
                JsonNode state = cxc(port);
                if (state != null && state.get("leader").get("self").asBoolean()) {
                    return System.nanoTime();
                }
            }
        }
        throw new AssertionError("no survivor said self=true within 30 s");
    }

    /** GET /actuator/cxc, or null if the instance does not answer (yet). */
    private JsonNode cxc(int port) throws InterruptedException {
        try {
            HttpResponse<String> response =
                    http.send(
                            HttpRequest.newBuilder(
                                            URI.create(
                                                    "http://127.0.0.1:" + port + "/actuator/cxc"))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return null;
            }
            JsonNode state = json.readTree(response.body());
            synchronized (termsSeen) {
                termsSeen.add(state.get("leader").get("term").asLong());
            }
            return state;
        } catch (IOException notUp) {
            return null;
        }
    }

    private static Path leaderFile(Path directory) {
        return directory.resolve("leader.cxc");
    }

    private static long millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }

    private static void report(
            String what, String first, long firstNanos, String second, long secondNanos) {
        System.out.printf(
                "MEASURED %s: %.1f ms %s; %.1f ms %s%n",
                what, firstNanos / 1e6, first, secondNanos / 1e6, second);
    }
}
