package io.subetha.cxc.election;

import java.util.OptionalLong;

/**
 * One read of a {@link SharedLeaderElection}'s state, for display and decisions off the fast path.
 * Fields are read one after another, not atomically together.
 *
 * @param leaderPid the leader's PID, {@link SharedLeaderElection#NO_LEADER} if none
 * @param term the election term: rises on every handover, the fencing token
 * @param heartbeat the global epoch at the leader's last beat
 * @param globalEpoch the global epoch
 * @param leaderStartTime the leader's start time if recorded for this term, else 0
 */
public record LeaderSnapshot(
        long leaderPid, long term, long heartbeat, long globalEpoch, long leaderStartTime) {

    public OptionalLong leader() {
        return leaderPid == SharedLeaderElection.NO_LEADER
                ? OptionalLong.empty()
                : OptionalLong.of(leaderPid);
    }

    /** How many epochs the leader's heartbeat is behind the global epoch (0 if ahead). */
    public long heartbeatLag() {
        return Math.max(0, globalEpoch - heartbeat);
    }

    /** Whether the leader's heartbeat is more than {@code graceEpochs} behind. */
    public boolean isStale(long graceEpochs) {
        return globalEpoch - heartbeat > graceEpochs;
    }
}
