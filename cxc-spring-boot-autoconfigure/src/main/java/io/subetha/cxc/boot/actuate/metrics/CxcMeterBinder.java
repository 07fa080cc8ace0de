package io.subetha.cxc.boot.actuate.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.fanout.ProgressTask;
import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.OpCounters;
import io.subetha.cxc.observe.PrimitiveRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * cxc's meters: the leader's term, whether this process leads, the leader's heartbeat lag and this
 * process's grace for it, the global epoch and the live participants (gauges read from the mapped
 * files at scrape time), and {@code cxc.ops}, one function counter per op of each registered
 * primitive.
 *
 * <p>{@code cxc.ops} follows the registry: the binder {@linkplain PrimitiveRegistry#subscribe
 * subscribes} to it, so a primitive registered after the meters were bound (a barrier bean created
 * lazily, a primitive the application opens at run time) is metered the moment it is registered,
 * not at some later re-sync. Closing the binder (with its context) unsubscribes, so a long-lived
 * registry such as {@link PrimitiveRegistry#global()} does not keep meters of a closed context.
 */
public final class CxcMeterBinder implements MeterBinder, AutoCloseable {

    private final PrimitiveRegistry primitives;
    private final @Nullable LeaderTicker ticker;
    private final @Nullable CxcParticipants participants;
    private final List<PrimitiveRegistry.Subscription> subscriptions = new CopyOnWriteArrayList<>();

    public CxcMeterBinder(
            PrimitiveRegistry primitives,
            @Nullable LeaderTicker ticker,
            @Nullable CxcParticipants participants) {
        this.primitives = primitives;
        this.ticker = ticker;
        this.participants = participants;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        if (ticker != null) {
            SharedLeaderElection election = ticker.election();
            long pid = ticker.participant().pid();
            Gauge.builder("cxc.leader.term", election, SharedLeaderElection::electionTerm)
                    .description("The election term: rises by one on each handover")
                    .strongReference(true)
                    .register(registry);
            Gauge.builder("cxc.leader.self", election, e -> e.isLeader(pid) ? 1 : 0)
                    .description("1 if this process leads, else 0")
                    .strongReference(true)
                    .register(registry);
            Gauge.builder("cxc.leader.heartbeat.lag", election, e -> e.snapshot().heartbeatLag())
                    .description("How far the leader's heartbeat is behind the global epoch")
                    .baseUnit("epochs")
                    .strongReference(true)
                    .register(registry);
            // The threshold for the lag above, so an alert can compare the two per process.
            Gauge.builder(
                            "cxc.leader.grace",
                            ticker.participant(),
                            ElectionParticipant::graceEpochs)
                    .description(
                            "How far the leader's heartbeat may lag before this process replaces"
                                    + " it (cxc.leader.grace-epochs)")
                    .baseUnit("epochs")
                    .strongReference(true)
                    .register(registry);
            Gauge.builder("cxc.epoch", election, SharedLeaderElection::globalEpoch)
                    .description("The election's global epoch")
                    .strongReference(true)
                    .register(registry);
        }
        if (participants != null) {
            Gauge.builder("cxc.participants.live", participants, CxcParticipants::liveCount)
                    .description(
                            "Participants in the heartbeat table that are alive: beat within the"
                                    + " grace, process not known dead")
                    .strongReference(true)
                    .register(registry);
        }
        subscriptions.add(primitives.subscribe(primitive -> bindOps(primitive, registry)));
    }

    /** Idempotent: registering a meter with an existing id returns the existing one. */
    private static void bindOps(ObservedPrimitive primitive, MeterRegistry registry) {
        if (primitive instanceof ProgressTask task) {
            Gauge.builder("cxc.progress", task, t -> t.read().ratio())
                    .description("A progress task's done / total, 0..1")
                    .tag("task", primitive.name())
                    .register(registry);
        }
        OpCounters counters = primitive.opCounters();
        for (OpCounters.Op op : counters.ops()) {
            int code = op.code();
            FunctionCounter.builder("cxc.ops", counters, c -> c.get(code))
                    .description("Operations of a cxc primitive by this process")
                    .tag("primitive", primitive.name())
                    .tag("kind", primitive.kind())
                    .tag("op", op.name())
                    .register(registry);
        }
    }

    /** Stops metering primitives registered from now on. */
    @Override
    public void close() {
        subscriptions.forEach(PrimitiveRegistry.Subscription::close);
        subscriptions.clear();
    }
}
