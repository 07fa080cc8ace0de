package io.subetha.cxc.ownership;

import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One process's part in a {@link SharedLeaderElection}, driven by a periodic {@link #tick()}: the
 * loop the Spring Boot starter's ticker and the chaos harness both run, in one place.
 *
 * <p>Each tick:
 *
 * <ol>
 *   <li>checks that the election's path still names the file (and directory) it mapped, of the size
 *       it mapped: if the file was deleted, replaced or truncated, this process stops leading at
 *       once (the handle it was given answers "not leader" from that moment), reports the loss,
 *       logs a warning, and re-joins the election on the file now at the path, carrying the old
 *       file's term over ({@link SharedLeaderElection#raiseTermFloor}) so terms keep rising;
 *   <li>advances the global epoch if no participant did within the tick interval (so a dead leader
 *       cannot freeze it);
 *   <li>beats its candidate seat, so the others see it alive;
 *   <li>claims or keeps leadership. When the seat is vacant (no leader, a stale heartbeat, a dead
 *       process) a participant that sees a lower live candidate lets that one claim first and
 *       claims itself only if it has not done so within {@link #deferLimit()} (so a hung lower PID
 *       cannot block failover): one handover per failover, not a claim followed by a preemption. A
 *       healthy leader is preempted only by the lowest live candidate, and only with {@link
 *       Preemption#LOWEST_PID};
 *   <li>beats as leader, and reports whether this process gained or lost leadership.
 * </ol>
 *
 * <p><b>Settings.</b> The tick interval and grace are the file's ({@link
 * SharedLeaderElection#settings()}), written by whoever created it: participants with different
 * settings would otherwise pace the epoch at the fastest one's rate and depose the slower ones. The
 * values given here are used to create a missing file; when they differ from the file's, a warning
 * names both.
 *
 * <p>Crash failover takes about the time the operating system needs to reap the dead process plus
 * one {@link #pollInterval()} of the heir (the lowest live candidate), which watches the seat more
 * often than it ticks: call {@link #poll()} between ticks. A leader that hangs alive is replaced
 * after {@code graceEpochs} intervals.
 *
 * <p>Not thread-safe: call {@link #tick()} and {@link #poll()} from one thread. {@link #isLeader()}
 * may be called from any thread.
 */
public final class ElectionParticipant {

    private static final System.Logger logger =
            System.getLogger(ElectionParticipant.class.getName());

    private static final long FILE_LENGTH =
            HeaderDescriptor.HEADER_LENGTH + LeaderElectionDescriptor.BODY_LENGTH;

    /** Opens (or creates) the election file at a path, for a re-join. */
    @FunctionalInterface
    public interface Opener {
        SharedLeaderElection open(Path path, SharedLeaderElection.Settings settings);
    }

    private final SharedLeaderElection origin;
    private final long pid;
    private final SharedLeaderElection.Settings requested;
    private final Preemption preemption;
    private final Opener opener;
    private final Path path;

    private SharedLeaderElection election;
    private SharedLeaderElection.Settings settings;
    private @Nullable Object fileKey;
    private @Nullable Object directoryKey;
    private boolean mustRejoin;

    private boolean wasLeader;
    private long lastTerm = -1;
    private int candidateSeat = -1;
    private long vacantSince;
    private boolean heir;

    /**
     * @param pid this process's PID, normally {@link Pids#current()}
     * @param graceEpochs epochs a leader's heartbeat may lag before it is replaced, for a new file
     * @param tickInterval how often {@link #tick()} is called, for a new file
     */
    public ElectionParticipant(
            SharedLeaderElection election, long pid, long graceEpochs, Duration tickInterval) {
        this(
                election,
                pid,
                graceEpochs,
                tickInterval,
                Preemption.LOWEST_PID,
                (path, settings) ->
                        SharedLeaderElection.openOrCreate(
                                path, settings, CxcFileOptions.defaults()));
    }

    /**
     * @param preemption whether a healthy leader gives way to a lower PID
     * @param opener how to open the file now at the path when the mapped one was replaced
     */
    public ElectionParticipant(
            SharedLeaderElection election,
            long pid,
            long graceEpochs,
            Duration tickInterval,
            Preemption preemption,
            Opener opener) {
        this.origin = Objects.requireNonNull(election, "election");
        this.pid = Pids.requireValid(pid);
        if (graceEpochs < 0) {
            throw new IllegalArgumentException("graceEpochs must be 0 or more, got " + graceEpochs);
        }
        if (tickInterval.isNegative() || tickInterval.isZero()) {
            throw new IllegalArgumentException(
                    "tickInterval must be positive, got " + tickInterval);
        }
        this.requested =
                new SharedLeaderElection.Settings(
                        tickInterval.compareTo(Duration.ofMillis(1)) < 0
                                ? Duration.ofMillis(1)
                                : tickInterval,
                        graceEpochs);
        this.preemption = Objects.requireNonNull(preemption, "preemption");
        this.opener = Objects.requireNonNull(opener, "opener");
        this.path = election.file();
        this.election = election.isRetired() ? election.active() : election;
        this.fileKey = election.fileKey();
        this.directoryKey = keyOf(directory(path));
        adopt(this.election);
        logger.isLoggable(System.Logger.Level.WARNING); // starts logging up before it is needed
    }

    /** What one tick saw and did. */
    public record TickOutcome(
            boolean leader,
            long leaderPid,
            long term,
            boolean gained,
            boolean lost,
            long lostTerm) {}

    /** Runs one round of the election; see the class comment. */
    public TickOutcome tick() {
        checkFile();
        SharedLeaderElection e = election;
        long grace = settings.graceEpochs();
        e.tickEpochIfDue(settings.tickInterval());
        beatCandidate(e, grace);

        long word = e.leaderWord();
        long leader = LeaderElectionDescriptor.leaderPid(word);
        boolean leads;
        if (leader == pid && e.isLeader(pid)) {
            leads = true;
            heir = false;
        } else {
            long lower = e.lowestLiveCandidateBelow(pid, leader, grace);
            if (rejoinedAt != 0 && System.nanoTime() - rejoinedAt >= deferLimit().toNanos()) {
                rejoinedAt = 0;
            }
            // Just after a re-join the new file's candidate table is still empty: if a lower
            // live candidate was seen on the old file, it is the heir until the limit passes.
            heir = lower == SharedLeaderElection.NO_LEADER && rejoinedAt == 0;
            if (seatVacant(e, word, grace)) {
                long now = System.nanoTime();
                if (vacantSince == 0) {
                    vacantSince = now;
                }
                // A lower live candidate claims first; claim only if it did not within the limit.
                leads =
                        (heir || now - vacantSince >= deferLimit().toNanos())
                                && (e.tryClaimLeadership(pid, grace, preemption)
                                        || e.claimIfLeaderDead(pid, grace));
            } else {
                vacantSince = 0;
                leads =
                        heir
                                && preemption == Preemption.LOWEST_PID
                                && leader > pid
                                && e.tryClaimLeadership(pid, grace, Preemption.LOWEST_PID);
            }
        }
        if (leads) {
            vacantSince = 0;
            rejoinedAt = 0;
            heir = false;
            leads = e.beatAsLeader(pid);
        }
        long myTerm = e.termIfLeader(pid);
        leads = myTerm >= 0;
        word = e.leaderWord();
        TickOutcome outcome =
                outcome(
                        leads,
                        leads ? pid : LeaderElectionDescriptor.leaderPid(word),
                        leads ? myTerm : LeaderElectionDescriptor.term(word));
        logPendingWarning(); // after the round: the claim never waits for logging
        return outcome;
    }

    /**
     * Between ticks: if this process is the heir (the lowest live candidate, not leading) and the
     * seat is vacant, runs a {@link #tick()} at once and returns its outcome; otherwise does
     * nothing and returns null. Call it every {@link #pollInterval()}: it reads the seat (and
     * probes the leader's process, about 10 µs) only on the heir.
     */
    public @Nullable TickOutcome poll() {
        if (!heir || mustRejoin) {
            return null;
        }
        SharedLeaderElection e = election;
        if (e.isRetired() || !seatVacant(e, e.leaderWord(), settings.graceEpochs())) {
            return null;
        }
        return tick();
    }

    /**
     * Whether the last tick found this process the heir: the lowest live candidate, not leading.
     */
    public boolean isHeir() {
        return heir;
    }

    /** How often the heir should {@link #poll()}: a fifth of the tick interval, at least 1 ms. */
    public Duration pollInterval() {
        Duration fifth = settings.tickInterval().dividedBy(5);
        return fifth.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : fifth;
    }

    /**
     * How long a participant that sees a lower live candidate waits for it to claim a vacant seat
     * before claiming itself: one and a half ticks.
     */
    public Duration deferLimit() {
        return settings.tickInterval().multipliedBy(3).dividedBy(2);
    }

    private static boolean seatVacant(SharedLeaderElection e, long word, long grace) {
        if (LeaderElectionDescriptor.leaderPid(word) == SharedLeaderElection.NO_LEADER) {
            return true;
        }
        LeaderSnapshot s = e.snapshot();
        if (s.leaderPid() != LeaderElectionDescriptor.leaderPid(word)) {
            return s.leaderPid() == SharedLeaderElection.NO_LEADER;
        }
        return s.isStale(grace) || e.leaderStatus() == ProcessStatus.DEAD;
    }

    private void beatCandidate(SharedLeaderElection e, long grace) {
        if (candidateSeat >= 0 && e.beatCandidate(candidateSeat, pid)) {
            return;
        }
        candidateSeat = e.registerCandidate(pid, grace);
        if (candidateSeat >= 0) {
            e.beatCandidate(candidateSeat, pid);
        }
    }

    private TickOutcome outcome(boolean leads, long leaderPid, long term) {
        // Losing and regaining between two ticks shows as a new term: report both edges.
        boolean lost = wasLeader && (!leads || term != lastTerm);
        boolean gained = leads && (!wasLeader || term != lastTerm);
        long lostTerm = lost ? lastTerm : -1;
        if (pendingLoss >= 0) {
            // Lost with a replaced file, before this tick's own decision.
            lost = true;
            lostTerm = pendingLoss;
            gained = leads;
            pendingLoss = -1;
        }
        wasLeader = leads;
        lastTerm = leads ? term : -1;
        return new TickOutcome(leads, leaderPid, term, gained, lost, lostTerm);
    }

    private long pendingLoss = -1;

    // ------------------------------------------------------------------ replaced file

    /**
     * Whether the path still names the mapped file, in the same directory, at its full length; if
     * not, stops leading at once and re-joins the election on the file now at the path.
     */
    private void checkFile() {
        String problem = mustRejoin ? null : fileProblem();
        if (problem == null && !mustRejoin) {
            return;
        }
        SharedLeaderElection old = election;
        if (!mustRejoin) {
            long carried = lastTerm;
            if (!problem.contains("truncated")) {
                try {
                    carried = Math.max(carried, old.electionTerm());
                } catch (RuntimeException | InternalError unreadable) {
                    // keep what this process saw
                }
            }
            carriedTerm = Math.max(carriedTerm, carried);
            lowerOnOldFile = false;
            if (!problem.contains("truncated")) {
                try {
                    lowerOnOldFile =
                            old.lowestLiveCandidateBelow(
                                            pid,
                                            SharedLeaderElection.NO_LEADER,
                                            settings.graceEpochs())
                                    != SharedLeaderElection.NO_LEADER;
                } catch (RuntimeException | InternalError unreadable) {
                    // then nobody waits for anybody
                }
            }
            old.retire(null);
            origin.retire(null);
            if (wasLeader) {
                pendingLoss = lastTerm;
                wasLeader = false;
                lastTerm = -1;
            }
            lostProblem = problem;
            mustRejoin = true;
        }
        SharedLeaderElection next = opener.open(path, requested); // may throw: retried next tick
        next.raiseTermFloor(carriedTerm);
        old.retire(next);
        origin.retire(next);
        election = next;
        fileKey = next.fileKey();
        directoryKey = keyOf(directory(path));
        candidateSeat = -1;
        vacantSince = 0;
        rejoinedAt = lowerOnOldFile ? System.nanoTime() : 0;
        vacantSince = rejoinedAt;
        heir = false;
        mustRejoin = false;
        adopt(next);
        // Logged after the re-join: the first log call of a process is slow (logging starts up),
        // and neither the loss nor the re-join should wait for it.
        pendingWarning =
                "cxc: the leader-election file "
                        + path
                        + " "
                        + lostProblem
                        + "; pid "
                        + pid
                        + (pendingLoss >= 0
                                ? " stopped leading term " + pendingLoss + " at once"
                                : " does not lead")
                        + " and re-joins the election on the file now at the path, with"
                        + " terms above "
                        + carriedTerm;
    }

    private String lostProblem = "";
    private @Nullable String pendingWarning;

    private void logPendingWarning() {
        String warning = pendingWarning;
        if (warning != null) {
            pendingWarning = null;
            logger.log(System.Logger.Level.WARNING, warning);
        }
    }

    private long carriedTerm;
    private boolean lowerOnOldFile;
    private long rejoinedAt;

    private @Nullable String fileProblem() {
        BasicFileAttributes attributes;
        try {
            attributes =
                    Files.readAttributes(
                            path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return "was deleted";
        } catch (IOException e) {
            return null; // cannot tell: keep going on the mapping we have
        }
        if (fileKey != null && !fileKey.equals(attributes.fileKey())) {
            return "was replaced by another file";
        }
        Object dir = keyOf(directory(path));
        if (directoryKey != null && dir != null && !directoryKey.equals(dir)) {
            return "is in a directory that was replaced";
        }
        if (attributes.size() < FILE_LENGTH) {
            return "was truncated to " + attributes.size() + " bytes";
        }
        return null;
    }

    private void adopt(SharedLeaderElection e) {
        SharedLeaderElection.Settings stored = e.settings();
        if (!stored.equals(settings) && !stored.equals(requested)) {
            logger.log(
                    System.Logger.Level.WARNING,
                    "cxc: the leader-election file "
                            + path
                            + " was created with tick interval "
                            + stored.tickInterval().toMillis()
                            + " ms and grace "
                            + stored.graceEpochs()
                            + " epochs, this process asked for "
                            + requested.tickInterval().toMillis()
                            + " ms and "
                            + requested.graceEpochs()
                            + " (cxc.leader.tick-interval, cxc.leader.grace-epochs): every"
                            + " participant runs at the file's. To change them, stop every"
                            + " participant and delete the file, or use a new file name.");
        }
        settings = stored;
    }

    private static Path directory(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return parent == null ? file.toAbsolutePath() : parent;
    }

    private static @Nullable Object keyOf(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------------- the rest

    /** Whether this process leads now: the election's fast path, safe from any thread. */
    public boolean isLeader() {
        return election.isLeader(pid);
    }

    /**
     * Steps down if this process leads, so another participant takes over on its next tick, and
     * gives up its candidate seat so no one waits for it.
     *
     * @return whether this process was the leader
     */
    public boolean stepDown() {
        SharedLeaderElection e = election;
        boolean was = e.stepDown(pid);
        if (candidateSeat >= 0) {
            e.leaveCandidates(candidateSeat, pid);
            candidateSeat = -1;
        }
        heir = false;
        if (was) {
            wasLeader = false;
            lastTerm = -1;
        }
        return was;
    }

    /** The election this participant runs on now: after a re-join, the file now at the path. */
    public SharedLeaderElection election() {
        return election;
    }

    public long pid() {
        return pid;
    }

    /** The grace in force: the file's. */
    public long graceEpochs() {
        return settings.graceEpochs();
    }

    /** The tick interval in force: the file's. */
    public Duration tickInterval() {
        return settings.tickInterval();
    }

    public Preemption preemption() {
        return preemption;
    }
}
