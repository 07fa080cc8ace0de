package io.subetha.cxc.boot.test;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.LeadershipLostEvent;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;

/**
 * The {@link CxcLeadership} of {@link AutoConfigureCxc.Leadership#ALWAYS} and {@link
 * AutoConfigureCxc.Leadership#NEVER}: a fixed answer. Leading always, it leads under {@link #TERM},
 * and tells the application so with the events a real election would publish. In the test's own
 * directory it is a {@link LeadershipTier} above the (private) election, which still runs so that
 * the heartbeat table, watchdogs and schedulers work as in production; its edges are not published.
 */
public final class FixedLeadership
        implements CxcLeadership, LeadershipTier, SmartLifecycle, ApplicationEventPublisherAware {

    /** The term of an always-leading test context. */
    public static final long TERM = 1;

    private final boolean leads;
    private final long pid = Pids.current();
    private ApplicationEventPublisher publisher = event -> {};
    private volatile boolean running;

    public FixedLeadership(boolean leads) {
        this.leads = leads;
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public boolean isLeader() {
        return leads;
    }

    @Override
    public OptionalLong currentLeader() {
        return leads ? OptionalLong.of(pid) : OptionalLong.empty();
    }

    @Override
    public long term() {
        return leads ? TERM : 0;
    }

    @Override
    public long termIfLeader() {
        return leads ? TERM : -1;
    }

    /** Nothing to step down from: the answer is fixed by the test. */
    @Override
    public boolean stepDown() {
        return false;
    }

    @Override
    public LeaderSnapshot snapshot() {
        return new LeaderSnapshot(leads ? pid : SharedLeaderElection.NO_LEADER, term(), 0, 0, 0);
    }

    @Override
    public void start() {
        running = true;
        if (leads) {
            publisher.publishEvent(new LeadershipGainedEvent(this, pid, TERM));
        }
    }

    @Override
    public void stop() {
        running = false;
        if (leads) {
            publisher.publishEvent(new LeadershipLostEvent(this, pid, TERM));
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Nothing to do on the host's rounds: the answer does not depend on them. */
    @Override
    public void afterHostRound() {}

    /** This fixed answer, whatever the host election says. */
    @Override
    public CxcLeadership leadership(CxcLeadership host) {
        return this;
    }

    @Override
    public Map<String, Object> describe() {
        return Map.of("fixed", leads ? "ALWAYS" : "NEVER", "leader", leads, "term", term());
    }

    @Override
    public @Nullable String problem() {
        return null;
    }

    @Override
    public String toString() {
        return "CxcLeadership[pid="
                + pid
                + ", fixed by the test: "
                + (leads ? "ALWAYS" : "NEVER")
                + "]";
    }
}
