package io.subetha.cxc.election;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One process's part in a {@link SharedLeaderElection}, driven by a periodic {@link #tick()}: the
 * loop the Spring Boot starter's ticker and the chaos harness both run, in one place.
 *
 * <p>Each tick first checks that the election's path still names the file it mapped, in the
 * directory it was in, at its full length (a {@code stat} and an 8-byte read of the file's
 * incarnation at the path, a few microseconds). If the file was deleted or replaced (an operator, a
 * tmp cleaner, {@code RemoveIPC}, a wiped {@code /dev/shm}) or truncated, this process stops
 * leading at once ({@link SharedLeaderElection#retire}: every handle of it answers "not leader"
 * from that moment), the tick reports the loss, a warning is logged, and the participant re-joins
 * the election on the file now at the path (opened or created through its {@link Opener}), lifting
 * that file's term above the highest it saw ({@link SharedLeaderElection#raiseTermFloor}), so terms
 * keep rising for a downstream fence. Every later call on the old handle forwards to the new one.
 *
 * <p>Then it advances the global epoch if no participant did within the tick interval (so a dead
 * leader cannot freeze it), claims or keeps leadership (lowest live PID wins, stale leaders are
 * replaced after the grace window), takes over at once from a leader whose process is dead, beats
 * as leader, and reports whether this process gained or lost leadership since the last tick.
 *
 * <p><b>One handover per failover.</b> Each participant holds a candidate seat in the file and
 * beats it every tick, so the participants see each other. When the leader's seat falls vacant (no
 * leader, a stale heartbeat, a dead process), only the <em>heir</em> (the lowest live candidate)
 * claims at once; the others claim only if the seat is still vacant {@link #deferLimit()} later (so
 * a hung lower PID cannot block failover). Without this, whichever survivor ticked first claimed
 * and the lowest live PID preempted it a tick later: two terms, and the interim leader's work
 * thrown away. The heir watches a vacant seat more often than it ticks: call {@link #poll()} every
 * {@link #pollInterval()}. A healthy leader is preempted by a lower live PID only with {@link
 * Preemption#LOWEST_PID} (the default, the seed's rule); with {@link Preemption#NONE} it keeps its
 * seat until it dies, steps down or stops beating.
 *
 * <p><b>Settings.</b> The tick interval and grace in force are the file's ({@link
 * SharedLeaderElection#settings()}), written by whoever created it: participants with different
 * settings would otherwise pace the epoch at the fastest one's rate and depose the slower ones. The
 * values given here create a missing file; when they differ from the file's, a warning names both.
 *
 * <p>Crash failover therefore takes about the time the operating system needs to reap the dead
 * process plus one poll interval of the heir; a leader that hangs alive (a long pause) is replaced
 * after {@code graceEpochs} intervals.
 *
 * <p>Not thread-safe: call {@link #tick()} from one thread. {@link #isLeader()} may be called from
 * any thread.
 */
public final class ElectionParticipant {

    private static final System.Logger logger =
            System.getLogger(ElectionParticipant.class.getName());

    private static final long FILE_LENGTH =
            HeaderDescriptor.HEADER_LENGTH + LeaderElectionDescriptor.BODY_LENGTH;

    /**
     * Opens (or creates, with {@code settings}) the election file now at the path, to re-join after
     * a replacement.
     */
    @FunctionalInterface
    public interface Opener {
        SharedLeaderElection open(Path path, SharedLeaderElection.Settings settings);
    }

    private final SharedLeaderElection origin;
    private final Path path;
    private final Opener opener;
    private final long pid;
    private final SharedLeaderElection.Settings requested;
    private final Preemption preemption;

    /**
     * The clock the defer limit and the re-join wait are measured on: {@link System#nanoTime()} but
     * in tests, which drive it to an exact instant. Never read on {@link #isLeader()}.
     */
    private final LongSupplier nanos;

    /** The settings in force: the file's. */
    private SharedLeaderElection.Settings settings;

    private int candidateSeat = -1;
    private long vacantSince;
    private volatile boolean heir;

    /**
     * After a re-join that saw a lower live candidate on the old file: when, else 0. The wait for
     * it ends when it shows on the new file, dies, or the defer limit passes.
     */
    private long rejoinedAt;

    /** The handle this participant runs on: {@link #origin} until its file is replaced. */
    private volatile SharedLeaderElection election;

    /** The key of the directory on the last open: names a replaced directory in the warning. */
    private @Nullable Object directoryKey;

    private boolean wasLeader;
    private long lastTerm = -1;

    /** The highest term seen on the files this participant ran on: the next file's floor. */
    private long highestTermSeen;

    /** A term lost with a replaced file, to report on the tick that found it. */
    private long pendingLoss = -1;

    /**
     * @param pid this process's PID, normally {@link Pids#current()}
     * @param graceEpochs epochs a leader's heartbeat may lag before it is replaced
     * @param tickInterval how often {@link #tick()} is called; also the epoch's pace
     */
    public ElectionParticipant(
            SharedLeaderElection election, long pid, long graceEpochs, Duration tickInterval) {
        this(
                election,
                pid,
                graceEpochs,
                tickInterval,
                Preemption.LOWEST_PID,
                SharedLeaderElection::openOrCreate);
    }

    /**
     * @param preemption whether a healthy leader gives way to a lower live PID
     * @param opener opens or creates the file now at the election's path when the mapped one was
     *     deleted or replaced (the starter's goes through its directory checks); it may throw, and
     *     is then tried again on the next tick
     */
    public ElectionParticipant(
            SharedLeaderElection election,
            long pid,
            long graceEpochs,
            Duration tickInterval,
            Preemption preemption,
            Opener opener) {
        this(election, pid, graceEpochs, tickInterval, preemption, opener, System::nanoTime);
    }

    /** The public constructor's, on {@code nanos} instead of {@link System#nanoTime()}: tests. */
    ElectionParticipant(
            SharedLeaderElection election,
            long pid,
            long graceEpochs,
            Duration tickInterval,
            Preemption preemption,
            Opener opener,
            LongSupplier nanos) {
        this.nanos = Objects.requireNonNull(nanos, "nanos");
        this.origin = Objects.requireNonNull(election, "election");
        this.opener = Objects.requireNonNull(opener, "opener");
        this.preemption = Objects.requireNonNull(preemption, "preemption");
        this.path = election.file();
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
        this.election = election.isRetired() ? election.active() : election;
        this.directoryKey = keyOf(directory(path));
        this.settings = this.election.settings();
        warnIfSettingsDiffer(this.election);
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
        SharedLeaderElection e = checkFile();
        if (e == null) {
            // Retired, and the file at the path could not be opened yet: not leading.
            heir = false;
            TickOutcome out = outcome(false, SharedLeaderElection.NO_LEADER, -1);
            logPendingWarnings();
            return out;
        }
        long grace = settings.graceEpochs();
        e.tickEpochIfDue(settings.tickInterval());
        beatCandidate(e, grace);

        long word = e.leaderWord();
        long leader = LeaderElectionDescriptor.leaderPid(word);
        boolean leads;
        if (leader == pid) {
            leads = e.tryClaimLeadership(pid, grace); // the fast path: ours
        } else {
            long now = nanos.getAsLong();
            if (rejoinedAt != 0 && rejoinWaitIsOver(e, leader, now)) {
                rejoinedAt = 0;
            }
            // Just after a re-join the new file's candidate table may still lack the lower
            // candidate seen on the old file: it stays the heir until the limit passes.
            boolean isHeir =
                    rejoinedAt == 0
                            && e.lowestLiveCandidateBelow(pid, leader, grace)
                                    == SharedLeaderElection.NO_LEADER;
            heir = isHeir;
            if (seatVacant(e, word, grace)) {
                if (vacantSince == 0) {
                    vacantSince = now;
                }
                // The heir claims first; the others only if it did not within the limit.
                leads =
                        (isHeir || now - vacantSince >= deferLimit().toNanos())
                                && (e.tryClaimLeadership(pid, grace, preemption)
                                        || e.claimIfLeaderDead(pid, grace));
            } else {
                vacantSince = 0;
                leads =
                        isHeir
                                && preemption == Preemption.LOWEST_PID
                                && leader > pid
                                && e.tryClaimLeadership(pid, grace);
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
        long leaderPid = leads ? pid : LeaderElectionDescriptor.leaderPid(word);
        long term = leads ? myTerm : LeaderElectionDescriptor.term(word);
        if (word != LeaderElectionDescriptor.RETIRED_WORD) {
            highestTermSeen = Math.max(highestTermSeen, term);
        }
        TickOutcome out = outcome(leads, leaderPid, term);
        logPendingWarnings(); // after the round: the claim never waits for logging
        return out;
    }

    /**
     * Between ticks: if this process is the heir (the lowest live candidate, not leading), or has
     * let the heir claim a vacant seat for the {@link #deferLimit()}, and the seat is vacant, runs
     * a {@link #tick()} at once and returns its outcome; otherwise does nothing and returns null.
     * Call it every {@link #pollInterval()}: on the heir it reads the seat and probes the leader's
     * process (about 10 µs); on anyone else it reads one field.
     */
    public @Nullable TickOutcome poll() {
        if (!wantsPoll()) {
            return null;
        }
        SharedLeaderElection current = election;
        if (rejoinedAt != 0) {
            // Waiting for the lower candidate seen on the replaced file: once it shows on this one
            // (or died), a round now finds who the heir is, so a leader killed meanwhile is seen
            // within a poll, not at the next tick.
            return !current.isRetired()
                            && rejoinWaitIsOver(
                                    current,
                                    LeaderElectionDescriptor.leaderPid(current.leaderWord()),
                                    nanos.getAsLong())
                    ? tick()
                    : null;
        }
        if (!heir && nanos.getAsLong() - vacantSince < deferLimit().toNanos()) {
            return null; // still the heir's turn
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

    /**
     * Whether {@link #poll()} has work between ticks: this process is the heir, or it is letting
     * the heir claim a vacant seat and claims itself once the defer limit has passed. Read it on
     * the thread that ticks.
     */
    public boolean wantsPoll() {
        return heir || vacantSince != 0 || rejoinedAt != 0;
    }

    /**
     * How often to {@link #poll()} while {@link #wantsPoll()}: a tenth of the tick interval (the
     * heir's share of a failover is half of it on average, about 10 µs of work each time), at least
     * 1 ms.
     */
    public Duration pollInterval() {
        Duration tenth = settings.tickInterval().dividedBy(10);
        return tenth.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : tenth;
    }

    /**
     * How long a participant that sees a lower live candidate waits for it to claim a vacant seat
     * before claiming itself: one tick (the heir polls ten times in it).
     */
    public Duration deferLimit() {
        return settings.tickInterval();
    }

    private static boolean seatVacant(SharedLeaderElection e, long word, long grace) {
        long leader = LeaderElectionDescriptor.leaderPid(word);
        if (leader == SharedLeaderElection.NO_LEADER) {
            return word != LeaderElectionDescriptor.RETIRED_WORD;
        }
        Interleaving.at(Point.SEAT_JUDGING);
        LeaderSnapshot s = e.snapshot();
        if (s.leaderPid() != leader) { // changed meanwhile
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

    private void warnIfSettingsDiffer(SharedLeaderElection e) {
        SharedLeaderElection.Settings stored = e.settings();
        settings = stored;
        if (!stored.equals(requested)) {
            warn(
                    "cxc: the leader-election file "
                            + path
                            + " was created with tick interval "
                            + stored.tickInterval().toMillis()
                            + " ms and grace "
                            + stored.graceEpochs()
                            + " epochs; this process asked for "
                            + requested.tickInterval().toMillis()
                            + " ms and "
                            + requested.graceEpochs()
                            + " (cxc.leader.tick-interval, cxc.leader.grace-epochs). Every"
                            + " participant runs at the file's, so none deposes another for being"
                            + " slower. To change them, stop every participant and delete the"
                            + " file, or use a new cxc.leader.name.");
        }
    }

    private TickOutcome outcome(boolean leads, long leaderPid, long term) {
        // Losing and regaining between two ticks shows as a new term: report both edges.
        boolean lost = wasLeader && (!leads || term != lastTerm);
        boolean gained = leads && (!wasLeader || term != lastTerm);
        long lostTerm = lost ? lastTerm : -1;
        if (pendingLoss >= 0) { // lost with a replaced file, before this tick's own round
            lost = true;
            lostTerm = pendingLoss;
            gained = leads;
            pendingLoss = -1;
        }
        wasLeader = leads;
        lastTerm = leads ? term : -1;
        return new TickOutcome(leads, leaderPid, term, gained, lost, lostTerm);
    }

    // ---------------------------------------------------------------------- replaced file

    /**
     * The handle to run this tick's round on, after checking that the path still names the mapped
     * file; if it does not, retires the mapped one and re-joins on the file now at the path.
     *
     * @return null if retired and the re-join failed (tried again next tick)
     * @throws RuntimeException the opener's failure, when there is no loss to report this tick
     */
    private @Nullable SharedLeaderElection checkFile() {
        SharedLeaderElection current = election;
        if (!current.isRetired()) {
            String problem = fileProblem();
            if (problem == null) {
                return current;
            }
            retire(current, problem);
        }
        SharedLeaderElection next;
        try {
            next = opener.open(path, requested);
        } catch (RuntimeException e) {
            if (pendingLoss >= 0) {
                warn(
                        "cxc: cannot re-join the leader election at "
                                + path
                                + " yet (tried again every tick): "
                                + e);
                return null;
            }
            throw e;
        }
        long atPath = incarnationAtPath();
        if (atPath != next.incarnation()) {
            // Replaced again while it was being opened (opens are slow on a loaded host): claiming
            // on it would issue a term the file now at the path issues too. Try again next tick.
            if (atPath != 0) {
                next.retire(pid, false);
            }
            next.close();
            return null;
        }
        if (next.raiseTermFloor(highestTermSeen)) {
            warn(
                    "cxc: the leader-election file now at "
                            + path
                            + " had a lower term than the one it replaced; lifted to "
                            + highestTermSeen
                            + " so terms keep rising for downstream fences");
        }
        current.forwardTo(next);
        if (current != origin) {
            origin.forwardTo(next);
        }
        election = next;
        directoryKey = keyOf(directory(path));
        candidateSeat = -1;
        heir = false;
        long now = nanos.getAsLong();
        rejoinedAt = lowerOnOldFile != SharedLeaderElection.NO_LEADER ? now : 0;
        vacantSince = now; // a non-heir claims the new file only after the limit
        warnIfSettingsDiffer(next);
        warn("cxc: pid " + pid + " re-joined the leader election on the file now at " + path);
        return next;
    }

    /**
     * The lowest live candidate below this process seen on the file being replaced (it re-joins
     * too), else {@link SharedLeaderElection#NO_LEADER}.
     */
    private long lowerOnOldFile;

    /**
     * Whether the wait after a re-join is over: the lower candidate seen on the old file holds a
     * candidate seat or the seat on this one (the heir is then judged by this file's table), or is
     * dead, or the defer limit has passed.
     */
    private boolean rejoinWaitIsOver(SharedLeaderElection e, long leader, long now) {
        if (now - rejoinedAt >= deferLimit().toNanos() || leader == lowerOnOldFile) {
            return true;
        }
        for (long candidate : e.candidates()) {
            if (candidate == lowerOnOldFile) {
                return true;
            }
        }
        return ProcessProbe.status(lowerOnOldFile, ProcessProbe.UNKNOWN_START_TIME)
                == ProcessStatus.DEAD;
    }

    private void retire(SharedLeaderElection current, String problem) {
        boolean truncated = problem.startsWith("was truncated");
        lowerOnOldFile = SharedLeaderElection.NO_LEADER;
        if (!truncated) {
            try {
                lowerOnOldFile =
                        current.lowestLiveCandidateBelow(
                                pid, SharedLeaderElection.NO_LEADER, settings.graceEpochs());
            } catch (RuntimeException | InternalError unreadable) {
                // then nobody waits for anybody
            }
        }
        long ledTerm = current.retire(pid, truncated);
        long lost = wasLeader ? lastTerm : ledTerm;
        if (lost >= 0) {
            pendingLoss = lost;
            highestTermSeen = Math.max(highestTermSeen, lost);
        }
        warn(
                "cxc: the leader-election file "
                        + path
                        + " "
                        + problem
                        + " under this running process (pid "
                        + pid
                        + "); "
                        + (lost >= 0
                                ? "it stopped leading term " + lost + " at once"
                                : "it did not lead")
                        + " and re-joins the election on the file now at the path, with terms"
                        + " above "
                        + highestTermSeen);
    }

    /** Queues a warning for the end of the tick: the loss and the re-join never wait for it. */
    private void warn(String message) {
        pendingWarnings.add(message);
    }

    private void logPendingWarnings() {
        if (pendingWarnings.isEmpty()) {
            return;
        }
        List<String> messages = List.copyOf(pendingWarnings);
        pendingWarnings.clear();
        // On a thread of their own: the first log call of a process starts logging up (100 ms
        // and more on a loaded host), and the ticker must not stop beating meanwhile.
        Warnings.THREAD.execute(
                () -> messages.forEach(m -> logger.log(System.Logger.Level.WARNING, m)));
    }

    /** The daemon thread warnings are logged on, started with the first warning. */
    private static final class Warnings {
        static final Executor THREAD =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "cxc-election-warnings");
                            t.setDaemon(true);
                            return t;
                        });
    }

    private final java.util.List<String> pendingWarnings = new java.util.ArrayList<>();

    /**
     * What is wrong with the path against the mapping, or null if it still names it (or cannot be
     * told this tick). Judged by the incarnation stored in the file, never by the file key alone: a
     * key recorded on open is read by path and can belong to a file that replaced the mapped one a
     * moment earlier, and a file system that reuses inode numbers (ext4 does, at once) gives a new
     * file the key of the deleted one, so a participant once stayed on its orphan. Nothing is
     * retired on a read that failed: a wrong retirement writes the retired word into the file every
     * process is using.
     */
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
        if (attributes.size() < FILE_LENGTH) {
            return "was truncated to " + attributes.size() + " bytes";
        }
        if (!election.isRetired() && !election.mappingHoldsItsIncarnation()) {
            // The same file, its contents gone: a seat read from it would restart the terms.
            return "was truncated and grown back (its mapped contents are zero)";
        }
        long atPath = incarnationAtPath();
        if (atPath == 0 || atPath == election.incarnation()) {
            return null;
        }
        Object dir = keyOf(directory(path));
        return directoryKey != null && dir != null && !directoryKey.equals(dir)
                ? "is in a directory that was replaced"
                : "was replaced by another file";
    }

    private long incarnationAtPath() {
        return SharedLeaderElection.incarnationAt(path);
    }

    private static Path directory(Path file) {
        Path absolute = file.toAbsolutePath();
        Path parent = absolute.getParent();
        return parent == null ? absolute : parent;
    }

    private static @Nullable Object keyOf(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------------------ the rest

    /** Whether this process leads now: the election's fast path, safe from any thread. */
    public boolean isLeader() {
        return election.isLeader(pid);
    }

    /**
     * Steps down if this process leads, so another participant takes over on its next tick.
     *
     * @return whether this process was the leader
     */
    public boolean stepDown() {
        SharedLeaderElection current = election;
        boolean was = !current.isRetired() && current.stepDown(pid);
        if (candidateSeat >= 0) { // so nobody defers to this process; the next tick re-registers
            current.leaveCandidates(candidateSeat, pid);
            candidateSeat = -1;
        }
        heir = false;
        if (was) {
            wasLeader = false;
            lastTerm = -1;
        }
        return was;
    }

    /** The handle this participant runs on now: after a re-join, the file now at the path. */
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
