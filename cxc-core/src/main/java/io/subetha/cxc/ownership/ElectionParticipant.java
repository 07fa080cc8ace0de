package io.subetha.cxc.ownership;

import io.subetha.cxc.process.Pids;
import java.time.Duration;
import java.util.Objects;

/**
 * One process's part in a {@link SharedLeaderElection}, driven by a periodic {@link #tick()}: the
 * loop the Spring Boot starter's ticker and the chaos harness both run, in one place.
 *
 * <p>Each tick: advances the global epoch if no participant did within the tick interval (so a dead
 * leader cannot freeze it), claims or keeps leadership (lowest live PID wins, stale leaders are
 * replaced after the grace window), takes over at once from a leader whose process is dead, beats
 * as leader, and reports whether this process gained or lost leadership since the last tick.
 *
 * <p>Crash failover therefore takes at most about one tick interval plus the time the operating
 * system needs to reap the dead process; a leader that hangs alive (a long pause) is replaced after
 * {@code graceEpochs} intervals.
 *
 * <p>Not thread-safe: call {@link #tick()} from one thread. {@link #isLeader()} may be called from
 * any thread.
 */
public final class ElectionParticipant {

    private final SharedLeaderElection election;
    private final long pid;
    private final long graceEpochs;
    private final Duration tickInterval;

    private boolean wasLeader;
    private long lastTerm = -1;

    /**
     * @param pid this process's PID, normally {@link Pids#current()}
     * @param graceEpochs epochs a leader's heartbeat may lag before it is replaced
     * @param tickInterval how often {@link #tick()} is called; also the epoch's pace
     */
    public ElectionParticipant(
            SharedLeaderElection election, long pid, long graceEpochs, Duration tickInterval) {
        this.election = Objects.requireNonNull(election, "election");
        this.pid = Pids.requireValid(pid);
        if (graceEpochs < 0) {
            throw new IllegalArgumentException("graceEpochs must be 0 or more, got " + graceEpochs);
        }
        if (tickInterval.isNegative() || tickInterval.isZero()) {
            throw new IllegalArgumentException(
                    "tickInterval must be positive, got " + tickInterval);
        }
        this.graceEpochs = graceEpochs;
        this.tickInterval = tickInterval;
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
        election.tickEpochIfDue(tickInterval);
        boolean leads = election.tryClaimLeadership(pid, graceEpochs);
        if (!leads) {
            leads = election.claimIfLeaderDead(pid, graceEpochs);
        }
        if (leads) {
            leads = election.beatAsLeader(pid);
        }
        long myTerm = election.termIfLeader(pid);
        leads = myTerm >= 0;
        long word = election.leaderWord();
        long leaderPid = leads ? pid : LeaderElectionDescriptor.leaderPid(word);
        long term = leads ? myTerm : LeaderElectionDescriptor.term(word);

        // Losing and regaining between two ticks shows as a new term: report both edges.
        boolean lost = wasLeader && (!leads || term != lastTerm);
        boolean gained = leads && (!wasLeader || term != lastTerm);
        long lostTerm = lost ? lastTerm : -1;
        wasLeader = leads;
        lastTerm = leads ? term : -1;
        return new TickOutcome(leads, leaderPid, term, gained, lost, lostTerm);
    }

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
        boolean was = election.stepDown(pid);
        if (was) {
            wasLeader = false;
            lastTerm = -1;
        }
        return was;
    }

    public SharedLeaderElection election() {
        return election;
    }

    public long pid() {
        return pid;
    }

    public long graceEpochs() {
        return graceEpochs;
    }

    public Duration tickInterval() {
        return tickInterval;
    }
}
