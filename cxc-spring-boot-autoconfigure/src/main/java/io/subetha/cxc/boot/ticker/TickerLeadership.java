package io.subetha.cxc.boot.ticker;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.SharedLeaderElection;
import java.util.OptionalLong;

/** The {@link CxcLeadership} bean: reads go to the election, step-down through the ticker. */
final class TickerLeadership implements CxcLeadership {

    private final LeaderTicker ticker;
    private final SharedLeaderElection election;
    private final long pid;

    TickerLeadership(LeaderTicker ticker) {
        this.ticker = ticker;
        this.election = ticker.election();
        this.pid = ticker.participant().pid();
    }

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public boolean isLeader() {
        return election.isLeader(pid);
    }

    @Override
    public OptionalLong currentLeader() {
        return election.currentLeader();
    }

    @Override
    public long term() {
        return election.electionTerm();
    }

    /** One read of the leader word: PID and term together. */
    @Override
    public long termIfLeader() {
        return election.termIfLeader(pid);
    }

    @Override
    public boolean stepDown() {
        return ticker.stepDown();
    }

    @Override
    public LeaderSnapshot snapshot() {
        return election.snapshot();
    }

    @Override
    public String toString() {
        return "CxcLeadership[pid=" + pid + ", " + election + "]";
    }
}
