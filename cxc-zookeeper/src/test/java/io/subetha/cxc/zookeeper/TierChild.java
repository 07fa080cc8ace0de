package io.subetha.cxc.zookeeper;

import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * One process of a simulated host: the real two-tier loop ({@link TwoTierParticipant}) on the
 * host's election file, plus a writer that stamps a ledger shared by every host with the global
 * term whenever it believes it leads. Lines on stdout:
 *
 * <ul>
 *   <li>{@code ready <pid>}
 *   <li>{@code global <term or -1> <nanoTime>}: global leadership as {@code termIfLeader()}
 *       answers, polled every millisecond
 *   <li>{@code accepted <term> <nanoTime>}: the first ledger write accepted under a term
 *   <li>{@code rejected <term> <outcome> <nanoTime>}: the first refusal of each kind under a term
 *   <li>{@code view <leaderPid> <leaderHost> <term>}: who leads globally, as this process sees it
 *   <li>{@code state <hostLeaderPid> <globalTerm> <session>}: the answer to {@code state}
 * </ul>
 *
 * Args: directory connectString latchPath hostName sessionMillis connectionMillis tickMillis
 * ledgerFile.
 */
public final class TierChild {

    private TierChild() {}

    public static void main(String[] args) throws Exception {
        Path directory = Files.createDirectories(Path.of(args[0]));
        String connect = args[1];
        String latchPath = args[2];
        String host = args[3];
        Duration session = Duration.ofMillis(Long.parseLong(args[4]));
        Duration connection = Duration.ofMillis(Long.parseLong(args[5]));
        long tickMillis = Long.parseLong(args[6]);
        Path ledgerFile = Path.of(args[7]);
        long me = Pids.current();

        SharedLeaderElection election =
                SharedLeaderElection.openOrCreate(directory.resolve("leader.cxc"));
        FencedLedger ledger = FencedLedger.openOrCreate(ledgerFile);
        GlobalTierSettings settings =
                GlobalTierSettings.beside(
                        election.file(), connect, session, connection, latchPath, host);
        GlobalTier global =
                new GlobalTier(
                        election,
                        me,
                        settings,
                        new GlobalTier.Listener() {
                            @Override
                            public void gained(long term) {}

                            @Override
                            public void lost(long term) {}
                        });
        TwoTierParticipant tiers =
                new TwoTierParticipant(
                        new ElectionParticipant(election, me, 3, Duration.ofMillis(tickMillis)),
                        global);
        System.out.println("ready " + me);

        Thread ticker =
                new Thread(
                        () -> {
                            GlobalTier.LeaderView seen = null;
                            while (true) {
                                tiers.tick();
                                GlobalTier.LeaderView view = global.globalLeader();
                                if (!view.equals(seen)) {
                                    seen = view;
                                    System.out.println(
                                            "view "
                                                    + view.pid()
                                                    + " "
                                                    + view.host()
                                                    + " "
                                                    + view.term());
                                }
                                LockSupport.parkNanos(tickMillis * 1_000_000);
                            }
                        },
                        "ticker");
        ticker.setDaemon(true);
        ticker.start();

        Thread writer =
                new Thread(
                        () -> {
                            long last = Long.MIN_VALUE;
                            Set<Long> accepted = new HashSet<>();
                            Set<String> rejected = new HashSet<>();
                            while (true) {
                                long term = tiers.termIfLeader();
                                long now = System.nanoTime();
                                if (term != last) {
                                    last = term;
                                    System.out.println("global " + term + " " + now);
                                }
                                if (term != GlobalTier.NOT_LEADER) {
                                    FencedLedger.WriteOutcome outcome = ledger.write(term, me);
                                    if (outcome.accepted()) {
                                        if (accepted.add(term)) {
                                            System.out.println("accepted " + term + " " + now);
                                        }
                                    } else if (rejected.add(term + " " + outcome)) {
                                        System.out.println(
                                                "rejected " + term + " " + outcome + " " + now);
                                    }
                                }
                                LockSupport.parkNanos(1_000_000);
                            }
                        },
                        "writer");
        writer.setDaemon(true);
        writer.start();

        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().equals("state")) {
                System.out.println(
                        "state "
                                + election.currentLeader().orElse(0)
                                + " "
                                + global.termIfLeader()
                                + " "
                                + global.sessionId());
            }
        }
        System.exit(0); // stdin closed: the test is over
    }
}
