package io.subetha.cxc.console;

import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.SharedLeaderElection;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The recent leadership terms as this process saw them, newest first: the election file keeps only
 * the current term, so the console notes each change of term or leader, on every tick of the ticker
 * (a few volatile reads) and on every read, with the wall-clock time it first saw it. The first
 * term noted began at or before its time.
 */
public final class LeadershipHistory implements TickTask {

    /** How many terms are kept: enough for an operator to see a flapping leader. */
    static final int KEPT = 20;

    private final SharedLeaderElection election;
    private final Clock clock;
    private final Deque<Term> terms = new ArrayDeque<>();

    public LeadershipHistory(SharedLeaderElection election, Clock clock) {
        this.election = election;
        this.clock = clock;
    }

    /**
     * One term as the console saw it.
     *
     * @param leaderPid the leader's PID, null while no process leads
     * @param sinceMillis when this process first saw it (epoch ms)
     * @param seenAtStart whether it was already in force when this process first looked, so it
     *     began earlier
     */
    public record Term(
            long term, @Nullable Long leaderPid, long sinceMillis, boolean seenAtStart) {}

    @Override
    public void onTick() {
        note();
    }

    /** The terms seen, newest first, the current one included. */
    public synchronized List<Term> recent() {
        note();
        return new ArrayList<>(terms);
    }

    private synchronized void note() {
        LeaderSnapshot snapshot = election.snapshot();
        Long pid =
                snapshot.leaderPid() == SharedLeaderElection.NO_LEADER
                        ? null
                        : snapshot.leaderPid();
        Term last = terms.peekFirst();
        if (last != null
                && last.term() == snapshot.term()
                && Objects.equals(last.leaderPid(), pid)) {
            return;
        }
        terms.addFirst(new Term(snapshot.term(), pid, clock.millis(), last == null));
        while (terms.size() > KEPT) {
            terms.removeLast();
        }
    }
}
