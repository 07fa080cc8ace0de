package io.subetha.cxc.boot;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.boot.annotation.OnNotLeader;

/** Thrown by a {@link OnNotLeader#THROW} {@code @LeaderOnly} method called on a non-leader. */
public class NotLeaderException extends CxcException {

    private final long pid;
    private final long leaderPid;

    public NotLeaderException(String method, long pid, long leaderPid) {
        super(
                method
                        + " runs only on the cxc leader; this process (pid "
                        + pid
                        + ") is not the leader ("
                        + (leaderPid == 0 ? "no process leads" : "pid " + leaderPid + " leads")
                        + ")");
        this.pid = pid;
        this.leaderPid = leaderPid;
    }

    /** This process's PID. */
    public long pid() {
        return pid;
    }

    /** The leader's PID at the check, 0 if none. */
    public long leaderPid() {
        return leaderPid;
    }
}
