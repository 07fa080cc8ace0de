package io.subetha.cxc.zookeeper.boot;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.zookeeper.GlobalTier;
import java.util.OptionalLong;

/**
 * The {@link CxcLeadership} bean when the ZooKeeper backend is on: leadership means global
 * leadership (this process leads its host and holds the latch), the term is the global term, and
 * {@code @LeaderOnly} decides by {@link #termIfLeader()}. {@link #snapshot()} stays the host
 * election's; stepping down goes through the host's leadership. Made by {@link ZooKeeperTier}.
 */
public final class ZooKeeperLeadership implements CxcLeadership {

    private final CxcLeadership host;
    private final GlobalTier tier;

    public ZooKeeperLeadership(CxcLeadership host, GlobalTier tier) {
        this.host = host;
        this.tier = tier;
    }

    @Override
    public long pid() {
        return tier.pid();
    }

    @Override
    public boolean isLeader() {
        return tier.isLeader();
    }

    /** The global leader's PID (on its own host), empty when nobody leads globally. */
    @Override
    public OptionalLong currentLeader() {
        GlobalTier.LeaderView view = tier.globalLeader();
        return view.pid() == 0 ? OptionalLong.empty() : OptionalLong.of(view.pid());
    }

    /**
     * The global term: this process's own while it leads, else the global leader's as last seen.
     */
    @Override
    public long term() {
        long own = tier.termIfLeader();
        return own != GlobalTier.NOT_LEADER ? own : tier.globalLeader().term();
    }

    @Override
    public long termIfLeader() {
        return tier.termIfLeader();
    }

    /**
     * Steps down as host leader, which ends global leadership too: the host-mate that takes over
     * joins the latch behind the other hosts' candidates.
     */
    @Override
    public boolean stepDown() {
        return host.stepDown();
    }

    @Override
    public LeaderSnapshot snapshot() {
        return host.snapshot();
    }

    public GlobalTier tier() {
        return tier;
    }

    @Override
    public String toString() {
        return "ZooKeeperLeadership[" + tier + "]";
    }
}
