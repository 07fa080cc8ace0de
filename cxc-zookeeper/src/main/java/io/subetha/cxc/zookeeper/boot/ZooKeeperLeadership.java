package io.subetha.cxc.zookeeper.boot;

import io.subetha.cxc.boot.CxcGlobalTier;
import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.autoconfigure.LeaderTicker;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.zookeeper.GlobalTier;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.curator.framework.state.ConnectionState;
import org.jspecify.annotations.Nullable;

/**
 * The {@link CxcLeadership} bean when the ZooKeeper backend is on: leadership means global
 * leadership (this process leads its host and holds the latch), the term is the global term, and
 * {@code @LeaderOnly} decides by {@link #termIfLeader()}. {@link #snapshot()} stays the host
 * election's. Also the {@link CxcGlobalTier} that {@code /actuator/cxc} and health show.
 */
public final class ZooKeeperLeadership implements CxcLeadership, CxcGlobalTier {

    private final LeaderTicker ticker;
    private final GlobalTier tier;

    public ZooKeeperLeadership(LeaderTicker ticker, GlobalTier tier) {
        this.ticker = ticker;
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
        return ticker.stepDown();
    }

    @Override
    public LeaderSnapshot snapshot() {
        return ticker.election().snapshot();
    }

    public GlobalTier tier() {
        return tier;
    }

    @Override
    public Map<String, Object> describe() {
        GlobalTier.LeaderView view = tier.globalLeader();
        Map<String, Object> global = new LinkedHashMap<>();
        global.put("backend", "zookeeper");
        long own = tier.termIfLeader();
        global.put("self", own != GlobalTier.NOT_LEADER);
        global.put("leaderPid", view.pid() == 0 ? null : view.pid());
        global.put("leaderHost", view.host());
        global.put("term", own != GlobalTier.NOT_LEADER ? own : view.term());
        global.put("hostLeader", ticker.election().isLeader(tier.pid()));
        ConnectionState state = tier.connectionState();
        global.put(
                "connection",
                tier.holdsSession()
                        ? (state == null ? "CONNECTING" : state.name())
                        : "NONE (the host leader holds this host's session)");
        global.put(
                "sessionId",
                tier.holdsSession() ? "0x" + Long.toHexString(tier.sessionId()) : null);
        global.put("node", tier.ownNode());
        global.put("connectString", tier.settings().connectString());
        global.put("path", tier.settings().latchPath());
        global.put("sessionTimeoutMillis", tier.settings().sessionTimeout().toMillis());
        global.put("hostName", tier.settings().hostName());
        global.put("hostRecord", tier.hostRecord().file().toString());
        return global;
    }

    @Override
    public @Nullable String problem() {
        if (!tier.holdsSession()) {
            return null; // a host-mate: the host leader speaks for this host
        }
        ConnectionState state = tier.connectionState();
        if (state != ConnectionState.CONNECTED && state != ConnectionState.RECONNECTED) {
            return "no ZooKeeper connection to "
                    + tier.settings().connectString()
                    + " ("
                    + (state == null ? "connecting" : state.name())
                    + "): this host takes no part in the global election";
        }
        return tier.problem();
    }

    @Override
    public String toString() {
        return "ZooKeeperLeadership[" + tier + "]";
    }
}
