package io.subetha.cxc.boot.actuate.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.subetha.cxc.boot.scheduling.FanoutWorkers;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.observe.PrimitiveRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * The fan-outs' meters: the gauge {@code cxc.fanout.items{fanout,priority}}, items in each level
 * not yet taken (read from the file at scrape time, so every process sees every producer's items),
 * for every fan-out registered in the {@link PrimitiveRegistry}, declared or opened by the
 * application (tagged with its file's name without the extension: a declared one's name); and the
 * counter {@code cxc.fanout.handled{fanout,outcome}} of the items this process's declared pools
 * handled (outcome: handled, returned, dead-lettered, refused).
 */
public final class FanoutMeters implements MeterBinder, AutoCloseable {

    private final PrimitiveRegistry primitives;
    private final @Nullable FanoutWorkers workers;
    private final List<PrimitiveRegistry.Subscription> subscriptions = new CopyOnWriteArrayList<>();

    public FanoutMeters(PrimitiveRegistry primitives, @Nullable FanoutWorkers workers) {
        this.primitives = primitives;
        this.workers = workers;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        subscriptions.add(
                primitives.subscribe(
                        primitive -> {
                            if (primitive instanceof PriorityFanout<?> fanout) {
                                bindItems(fanout, registry);
                            }
                        }));
        if (workers != null) {
            workers.counts().forEach((fanout, counts) -> bindHandled(fanout, counts, registry));
        }
    }

    private static void bindItems(PriorityFanout<?> fanout, MeterRegistry registry) {
        // Its declared name, as the handled counter's tag: the file's name without its extension.
        String file = fanout.name();
        String name = file.lastIndexOf('.') > 0 ? file.substring(0, file.lastIndexOf('.')) : file;
        for (int p = 0; p < PriorityFanout.MAX_PRIORITIES; p++) {
            int priority = p;
            Gauge.builder(
                            "cxc.fanout.items",
                            fanout,
                            f -> f.isClosed() ? Double.NaN : f.depth(priority))
                    .description("Items in a fan-out's priority level not yet taken")
                    .tag("fanout", name)
                    .tag("priority", Integer.toString(priority))
                    .register(registry);
        }
    }

    private void bindHandled(String fanout, Map<String, Long> counts, MeterRegistry registry) {
        FanoutWorkers pools = workers;
        for (String outcome : counts.keySet()) {
            if (outcome.equals("workers")) {
                continue;
            }
            FunctionCounter.builder(
                            "cxc.fanout.handled",
                            pools,
                            w ->
                                    w.counts()
                                            .getOrDefault(fanout, Map.of())
                                            .getOrDefault(outcome, 0L))
                    .description(
                            "Items this process's handler pool took, by outcome: handled,"
                                    + " returned (threw, to be retried), dead-lettered, refused"
                                    + " (returned meanwhile, delivered elsewhere)")
                    .tag("fanout", fanout)
                    .tag("outcome", outcome)
                    .register(registry);
        }
    }

    /** Stops metering fan-outs registered from now on. */
    @Override
    public void close() {
        subscriptions.forEach(PrimitiveRegistry.Subscription::close);
        subscriptions.clear();
    }
}
