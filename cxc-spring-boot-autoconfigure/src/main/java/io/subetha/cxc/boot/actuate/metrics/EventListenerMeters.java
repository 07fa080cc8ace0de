package io.subetha.cxc.boot.actuate.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.subetha.cxc.boot.eventlog.EventListenerObserver;
import java.util.function.LongSupplier;

/**
 * This copy's event-log listeners as meters: {@code cxc.events.pending{log,listener}} (events
 * published and not yet handled by the listener), {@code cxc.events.overwritten{log,listener}}
 * (events the log overwrote before the listener read them) and {@code
 * cxc.events.failed{log,listener}} (events whose method threw).
 */
public final class EventListenerMeters implements EventListenerObserver {

    private final MeterRegistry registry;

    public EventListenerMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void listening(String log, String listener, LongSupplier pending) {
        Gauge.builder("cxc.events.pending", pending, LongSupplier::getAsLong)
                .description(
                        "Events of a cxc event log published and not yet handled by a listener")
                .tags("log", log, "listener", listener)
                .strongReference(true)
                .register(registry);
    }

    @Override
    public void overwritten(String log, String listener, long events) {
        Counter.builder("cxc.events.overwritten")
                .description("Events a cxc event log overwrote before a listener read them")
                .tags("log", log, "listener", listener)
                .register(registry)
                .increment(events);
    }

    @Override
    public void failed(String log, String listener) {
        Counter.builder("cxc.events.failed")
                .description("Events a cxc event-log listener's method threw for")
                .tags("log", log, "listener", listener)
                .register(registry)
                .increment();
    }
}
