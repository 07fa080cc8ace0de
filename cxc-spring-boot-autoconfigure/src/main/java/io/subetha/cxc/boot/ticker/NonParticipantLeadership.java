package io.subetha.cxc.boot.ticker;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.SharedLeaderElection;
import java.util.OptionalLong;

/**
 * The {@link CxcLeadership} bean of a process that takes no part in the election ({@code
 * cxc.enabled=false} or {@code cxc.leader.enabled=false}): it never leads, so {@code @LeaderOnly}
 * methods are skipped here (or refused, in THROW mode) rather than run on every instance, and
 * application code that injects {@link CxcLeadership} still starts.
 */
public final class NonParticipantLeadership implements CxcLeadership {

    private final long pid;
    private final String why;

    /**
     * @param why the switch that is off, for {@link #toString()}: "cxc.enabled=false"
     */
    public NonParticipantLeadership(long pid, String why) {
        this.pid = pid;
        this.why = why;
    }

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public boolean isLeader() {
        return false;
    }

    /** Empty: this process sees no election. */
    @Override
    public OptionalLong currentLeader() {
        return OptionalLong.empty();
    }

    @Override
    public long term() {
        return 0;
    }

    @Override
    public long termIfLeader() {
        return -1;
    }

    @Override
    public boolean stepDown() {
        return false;
    }

    @Override
    public LeaderSnapshot snapshot() {
        return new LeaderSnapshot(SharedLeaderElection.NO_LEADER, 0, 0, 0, 0);
    }

    @Override
    public String toString() {
        return "CxcLeadership[pid=" + pid + ", not taking part: " + why + "]";
    }
}
