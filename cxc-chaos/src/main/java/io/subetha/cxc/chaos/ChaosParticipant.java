package io.subetha.cxc.chaos;

import io.subetha.cxc.chaos.ChaosRecord.Type;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.ElectionParticipant.TickOutcome;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.election.FencedLedger.WriteOutcome;
import io.subetha.cxc.election.Preemption;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * One chaos participant: a JVM that runs the real election loop ({@link ElectionParticipant}) on
 * the shared election file and, while it believes it leads, writes work stamped with its term to
 * the shared {@link FencedLedger}. Every leadership change it makes or observes and every write it
 * offers goes to its own log, one {@link ChaosRecord} per line, flushed per line so a SIGKILL loses
 * nothing already done.
 *
 * <p>The loop does work every {@code workMillis} and ticks the election every {@code tickMillis}.
 * Work comes first in each round and uses the term of the last tick that found this process
 * leading, as an application would between ticks: after a freeze (SIGSTOP, a long GC pause) the
 * process still believes it leads until its next tick, and the ledger is what stops its writes.
 *
 * <p>Protocol: prints {@code ready} once its files are open; waits for {@code go} on stdin (a warm
 * spare starts early and joins when told); prints {@code ticking} and then {@code gained <term>} on
 * each gain. SIGTERM steps down before exit; stdin EOF exits.
 *
 * <p>Usage: {@code ChaosParticipant <election-file> <ledger-file> <log-dir> <tick-ms>
 * <grace-epochs> <work-ms> [lowest-pid|none]}
 */
public final class ChaosParticipant {

    private final ElectionParticipant participant;
    private final FencedLedger ledger;
    private final BufferedWriter log;
    private final long pid = Pids.current();
    private final long tickNanos;
    private final long workNanos;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopping;

    private long believedTerm = -1; // term of the last tick that found us leading; -1: not leading
    private long observedLeader = -1;
    private long observedTerm = -1;

    private ChaosParticipant(
            ElectionParticipant participant,
            FencedLedger ledger,
            BufferedWriter log,
            Duration tick,
            Duration work) {
        this.participant = participant;
        this.ledger = ledger;
        this.log = log;
        this.tickNanos = tick.toNanos();
        this.workNanos = work.toNanos();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6 && args.length != 7) {
            System.err.println(
                    "usage: ChaosParticipant <election-file> <ledger-file> <log-dir> <tick-ms>"
                            + " <grace-epochs> <work-ms> [lowest-pid|none]");
            System.exit(2);
        }
        Preemption preemption =
                args.length == 7 && args[6].equals("none")
                        ? Preemption.NONE
                        : Preemption.LOWEST_PID;
        Duration tick = Duration.ofMillis(Long.parseLong(args[3]));
        long grace = Long.parseLong(args[4]);
        Duration work = Duration.ofMillis(Long.parseLong(args[5]));
        SharedLeaderElection election = SharedLeaderElection.open(Path.of(args[0]));
        FencedLedger ledger = FencedLedger.open(Path.of(args[1]));
        BufferedWriter log =
                Files.newBufferedWriter(
                        Path.of(args[2]).resolve("participant-" + Pids.current() + ".log"),
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
        ChaosParticipant chaos =
                new ChaosParticipant(
                        new ElectionParticipant(
                                election,
                                Pids.current(),
                                grace,
                                tick,
                                preemption,
                                // the harness replaces the file (REPLACE): re-join the new one
                                (path, settings) ->
                                        SharedLeaderElection.openOrCreate(path, settings)),
                        ledger,
                        log,
                        tick,
                        work);
        // Warm the paths the loop uses before reporting ready, so joining is quick.
        election.leaderWord();
        ledger.highestTerm();
        say("ready");

        CountDownLatch go = new CountDownLatch(1);
        Thread stdin =
                new Thread(
                        () -> {
                            try (BufferedReader in =
                                    new BufferedReader(
                                            new InputStreamReader(
                                                    System.in, StandardCharsets.UTF_8))) {
                                String line;
                                while ((line = in.readLine()) != null) {
                                    if (line.equals("go")) {
                                        go.countDown();
                                    }
                                }
                            } catch (IOException ignored) {
                                // treated as EOF
                            }
                            System.exit(0); // the harness is done with us
                        },
                        "stdin");
        stdin.setDaemon(true);
        stdin.start();
        go.await();

        Runtime.getRuntime().addShutdownHook(new Thread(chaos::stepDownOnShutdown, "step-down"));
        say("ticking");
        chaos.run();
    }

    private void run() {
        long nextTick = System.nanoTime();
        long nextWork = nextTick;
        long nextPoll = nextTick;
        long pollNanos = participant.pollInterval().toNanos();
        try {
            while (!stopping) {
                long now = System.nanoTime();
                if (now - nextWork >= 0) {
                    if (believedTerm > 0) {
                        offerWork();
                    }
                    nextWork = now + workNanos;
                }
                if (now - nextTick >= 0) {
                    tick();
                    nextTick = now + tickNanos;
                } else if (participant.wantsPoll() && now - nextPoll >= 0) {
                    // The heir watches a vacant seat between ticks, as the starter's ticker does.
                    TickOutcome polled = participant.poll();
                    if (polled != null) {
                        report(polled);
                    }
                    nextPoll = now + pollNanos;
                }
                long due = Math.min(nextTick, nextWork);
                if (participant.wantsPoll()) {
                    due = Math.min(due, nextPoll);
                }
                long parked = System.nanoTime();
                LockSupport.parkNanos(due - parked);
                // Oversleep only: a slow tick is the election's own time and is never excused.
                long asked = Math.max(due, parked);
                long woke = System.nanoTime();
                if (woke - asked > tickNanos) {
                    record(new ChaosRecord(Type.STALL, believedTerm, pid, asked, woke, "", pid));
                }
            }
        } finally {
            stopped.countDown();
        }
    }

    private void offerWork() {
        long start = System.nanoTime();
        WriteOutcome outcome = ledger.write(believedTerm, pid);
        long end = System.nanoTime();
        record(new ChaosRecord(Type.WRITE, believedTerm, pid, start, end, outcome.name(), pid));
    }

    private void tick() {
        report(participant.tick());
    }

    private void report(TickOutcome outcome) {
        long now = System.nanoTime();
        if (outcome.lost()) {
            believedTerm = -1;
            record(
                    new ChaosRecord(
                            Type.LOST,
                            outcome.lostTerm(),
                            pid,
                            now,
                            now,
                            outcome.leaderPid() + "@" + outcome.term(),
                            pid));
        }
        if (outcome.gained()) {
            believedTerm = outcome.term();
            record(new ChaosRecord(Type.GAINED, outcome.term(), pid, now, now, "", pid));
            say("gained " + outcome.term());
        }
        if (outcome.leaderPid() != observedLeader || outcome.term() != observedTerm) {
            observedLeader = outcome.leaderPid();
            observedTerm = outcome.term();
            if (!outcome.leader()) {
                record(
                        new ChaosRecord(
                                Type.OBSERVED,
                                outcome.term(),
                                outcome.leaderPid(),
                                now,
                                now,
                                "",
                                pid));
            }
        }
    }

    /** SIGTERM: stop the loop first, so it cannot claim again, then hand leadership over. */
    private void stepDownOnShutdown() {
        stopping = true;
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long term = participant.election().termIfLeader(pid);
        if (participant.stepDown()) {
            long now = System.nanoTime();
            record(new ChaosRecord(Type.STEPDOWN, term, pid, now, now, "", pid));
        }
    }

    private synchronized void record(ChaosRecord record) {
        try {
            log.write(record.format());
            log.newLine();
            log.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
