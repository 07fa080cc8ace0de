package io.subetha.cxc.election;

import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.ChildServer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM for the multi-process leader-election tests. Prints {@code ready <pid>}, then is
 * served by {@link ChildServer}.
 *
 * <ul>
 *   <li>{@code open <path> [<tickMillis> <graceEpochs>]}: openOrCreate (with those settings for a
 *       new file); answers {@code opened <created> <fileKey>}
 *   <li>{@code participate <tickMillis> <graceEpochs>}: runs an {@link ElectionParticipant} loop in
 *       the background, printing {@code gained <term> <nanoTime>} and {@code lost <term>}
 *   <li>{@code state}: answers {@code state <leaderPid> <term> <epoch>}
 *   <li>{@code leads}: answers {@code leads <participant.isLeader()> <the opened handle's isLeader>
 *       <the participant's file key> <its incarnation>}
 *   <li>{@code tick}: ticks the epoch; answers {@code ticked <epoch>}
 *   <li>{@code hammer <termsFile> <threads> <iterations> <pidBase> <firstTerm>}: contends for
 *       leadership, recording every term it was granted in a shared file (at {@code term -
 *       firstTerm}); answers {@code hammered <claims> <conflicts>}
 * </ul>
 */
public final class LeaderChild {

    private static volatile SharedLeaderElection election;
    private static volatile ElectionParticipant participant;

    private LeaderChild() {}

    public static void main(String[] args) {
        say("ready " + Pids.current());
        new ChildServer()
                .on(
                        "open",
                        words -> {
                            election =
                                    words.length == 4
                                            ? SharedLeaderElection.openOrCreate(
                                                    Path.of(words[1]),
                                                    new SharedLeaderElection.Settings(
                                                            Duration.ofMillis(
                                                                    Long.parseLong(words[2])),
                                                            Long.parseLong(words[3])))
                                            : SharedLeaderElection.openOrCreate(Path.of(words[1]));
                            return "opened " + election.createdFile() + " " + election.fileKey();
                        })
                .on(
                        "participate",
                        words -> participate(Long.parseLong(words[1]), Long.parseLong(words[2])))
                .on(
                        "state",
                        words -> {
                            LeaderSnapshot s = election.snapshot();
                            return "state "
                                    + s.leaderPid()
                                    + " "
                                    + s.term()
                                    + " "
                                    + s.globalEpoch();
                        })
                .on(
                        "leads",
                        words -> {
                            ElectionParticipant p = participant;
                            return "leads "
                                    + p.isLeader()
                                    + " "
                                    + election.isLeader(Pids.current())
                                    + " "
                                    + p.election().fileKey()
                                    + " "
                                    + p.election().incarnation();
                        })
                .on("tick", words -> "ticked " + election.tickEpoch())
                .on(
                        "hammer",
                        words ->
                                hammer(
                                        Path.of(words[1]),
                                        Integer.parseInt(words[2]),
                                        Integer.parseInt(words[3]),
                                        Long.parseLong(words[4]),
                                        Long.parseLong(words[5])))
                .serve();
    }

    private static String participate(long tickMillis, long graceEpochs) {
        ElectionParticipant participant =
                new ElectionParticipant(
                        election, Pids.current(), graceEpochs, Duration.ofMillis(tickMillis));
        LeaderChild.participant = participant;
        Thread loop =
                new Thread(
                        () -> {
                            while (true) {
                                ElectionParticipant.TickOutcome outcome = participant.tick();
                                if (outcome.lost()) {
                                    say("lost " + outcome.lostTerm());
                                }
                                if (outcome.gained()) {
                                    say("gained " + outcome.term() + " " + System.nanoTime());
                                }
                                // The tick cadence, as the starter's ticker keeps it.
                                LockSupport.parkNanos(tickMillis * 1_000_000);
                            }
                        },
                        "participant");
        loop.setDaemon(true);
        loop.start();
        return "participating";
    }

    /**
     * Several threads, each with its own PID, claim, beat, tick and step down at random. Every time
     * a thread reads its own PID in the leader word, it records that term as its own in slot {@code
     * term} of the terms file by CAS from 0. A slot already holding another PID means two PIDs held
     * one term: split brain.
     */
    private static String hammer(
            Path termsFile, int threads, int iterations, long pidBase, long firstTerm)
            throws Exception {
        AtomicBuffer terms;
        try (FileChannel channel =
                FileChannel.open(termsFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            terms =
                    new AtomicBuffer(
                            channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size()));
        }
        int slots = terms.capacity() / 8;
        long[] claims = new long[threads];
        long[] conflicts = new long[threads];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int index = t;
            long pid = pidBase + t;
            workers[t] =
                    new Thread(
                            () -> {
                                SplittableRandom random = new SplittableRandom(pid);
                                for (int i = 0; i < iterations; i++) {
                                    int action = random.nextInt(10);
                                    if (action == 0) {
                                        election.tickEpoch();
                                    } else if (action < 7) {
                                        election.tryClaimLeadership(pid, 1);
                                    } else if (action < 9) {
                                        election.stepDown(pid);
                                    } else {
                                        election.beatAsLeader(pid);
                                    }
                                    long word = election.leaderWord();
                                    if (LeaderElectionDescriptor.leaderPid(word) == pid) {
                                        int term =
                                                (int)
                                                        (LeaderElectionDescriptor.term(word)
                                                                - firstTerm);
                                        if (term >= slots) {
                                            throw new IllegalStateException(
                                                    "terms file too small for term " + term);
                                        }
                                        long seen = terms.compareAndExchangeLong(term * 8, 0, pid);
                                        if (seen == 0) {
                                            claims[index]++;
                                        } else if (seen != pid) {
                                            conflicts[index]++;
                                            say(
                                                    "conflict term "
                                                            + term
                                                            + " held by "
                                                            + seen
                                                            + " and "
                                                            + pid);
                                        }
                                    }
                                }
                            });
            workers[t].start();
        }
        long totalClaims = 0;
        long totalConflicts = 0;
        for (int t = 0; t < threads; t++) {
            workers[t].join();
            totalClaims += claims[t];
            totalConflicts += conflicts[t];
        }
        return "hammered " + totalClaims + " " + totalConflicts;
    }
}
