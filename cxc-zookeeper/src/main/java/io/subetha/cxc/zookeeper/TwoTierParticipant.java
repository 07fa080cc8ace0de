package io.subetha.cxc.zookeeper;

import io.subetha.cxc.election.ElectionParticipant;
import java.util.Objects;

/**
 * Both tiers in one loop, for applications without the Spring Boot starter: call {@link #tick()} on
 * the host election's cadence from one thread. Each tick runs the host-local round ({@link
 * ElectionParticipant#tick()}), then the ZooKeeper tier's ({@link GlobalTier#onTick()}).
 *
 * <pre>{@code
 * var election = SharedLeaderElection.openOrCreate(dir.resolve("leader.cxc"));
 * var settings = GlobalTierSettings.beside(election.file(), "zk1:2181,zk2:2181,zk3:2181",
 *         Duration.ofSeconds(10), Duration.ofSeconds(3), "/cxc/myapp/leader", hostName);
 * try (var tiers = new TwoTierParticipant(
 *         new ElectionParticipant(election, me, 3, Duration.ofMillis(50)),
 *         new GlobalTier(election, me, settings, listener))) {
 *     while (running) {
 *         tiers.tick();
 *         long term = tiers.termIfLeader();     // -1 unless this process leads globally
 *         if (term != -1) ledger.write(term, me); // the fencing token, across hosts
 *         Thread.sleep(50);
 *     }
 * }
 * }</pre>
 */
public final class TwoTierParticipant implements AutoCloseable {

    private final ElectionParticipant host;
    private final GlobalTier global;

    public TwoTierParticipant(ElectionParticipant host, GlobalTier global) {
        this.host = Objects.requireNonNull(host, "host");
        this.global = Objects.requireNonNull(global, "global");
        if (host.election() != null && host.pid() != global.pid()) {
            throw new IllegalArgumentException(
                    "the host participant's PID "
                            + host.pid()
                            + " differs from the global tier's "
                            + global.pid());
        }
    }

    /** One round of both tiers; returns the host round's outcome. */
    public ElectionParticipant.TickOutcome tick() {
        ElectionParticipant.TickOutcome outcome = host.tick();
        global.onTick();
        return outcome;
    }

    /** The global term this process leads under, or {@link GlobalTier#NOT_LEADER}. */
    public long termIfLeader() {
        return global.termIfLeader();
    }

    public boolean isLeader() {
        return global.isLeader();
    }

    public ElectionParticipant host() {
        return host;
    }

    public GlobalTier global() {
        return global;
    }

    /** Closes the ZooKeeper tier; host leadership is left to the caller (step down first). */
    @Override
    public void close() {
        global.close();
    }
}
