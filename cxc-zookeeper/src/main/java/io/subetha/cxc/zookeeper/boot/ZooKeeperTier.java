package io.subetha.cxc.zookeeper.boot;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.zookeeper.GlobalTier;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.curator.framework.state.ConnectionState;
import org.jspecify.annotations.Nullable;

/**
 * The ZooKeeper backend as the starter's {@link LeadershipTier}: the {@link GlobalTier}'s round
 * after every host round, {@link ZooKeeperLeadership} as the application's leadership, and the
 * global election's state under {@code global} in {@code /actuator/cxc} and the health details.
 */
public final class ZooKeeperTier implements LeadershipTier {

    private final GlobalTier tier;
    private final SharedLeaderElection election;

    /**
     * @param election the host election the tier runs over
     */
    public ZooKeeperTier(GlobalTier tier, SharedLeaderElection election) {
        this.tier = tier;
        this.election = election;
    }

    @Override
    public void afterHostRound() {
        tier.onTick();
    }

    @Override
    public CxcLeadership leadership(CxcLeadership host) {
        return new ZooKeeperLeadership(host, tier);
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
        global.put("hostLeader", election.isLeader(tier.pid()));
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
        return "ZooKeeperTier[" + tier + "]";
    }
}
