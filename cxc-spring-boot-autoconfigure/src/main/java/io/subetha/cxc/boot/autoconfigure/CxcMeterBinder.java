package io.subetha.cxc.boot.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.OpCounters;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.ownership.SharedLeaderElection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * cxc's meters: the leader's term, whether this process leads, the leader's heartbeat lag and the
 * global epoch (gauges read from the mapped file at scrape time), and {@code cxc.ops}, one function
 * counter per op of each primitive registered when the registry is bound.
 */
class CxcMeterBinder implements MeterBinder {

    private final PrimitiveRegistry primitives;
    private final @Nullable LeaderTicker ticker;

    CxcMeterBinder(PrimitiveRegistry primitives, @Nullable LeaderTicker ticker) {
        this.primitives = primitives;
        this.ticker = ticker;
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
            Gauge.builder("cxc.epoch", election, SharedLeaderElection::globalEpoch)
                    .description("The election's global epoch")
                    .strongReference(true)
                    .register(registry);
        }
        for (ObservedPrimitive primitive : primitives.primitives()) {
            OpCounters counters = primitive.opCounters();
            List<String> ops = counters.opNames();
            for (int i = 0; i < ops.size(); i++) {
                int op = i + 1;
                FunctionCounter.builder("cxc.ops", counters, c -> c.get(op))
                        .description("Operations of a cxc primitive by this process")
                        .tag("primitive", primitive.name())
                        .tag("kind", primitive.kind().displayName())
                        .tag("op", ops.get(i))
                        .register(registry);
            }
        }
    }
}
