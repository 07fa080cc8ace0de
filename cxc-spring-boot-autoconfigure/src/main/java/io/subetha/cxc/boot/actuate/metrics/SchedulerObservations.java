package io.subetha.cxc.boot.actuate.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import io.subetha.cxc.boot.scheduling.JobRunObserver;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.boot.scheduling.TraceCarryingCodec;
import io.subetha.cxc.scheduling.Job;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanRegistry;
import org.springframework.beans.factory.ObjectProvider;

/**
 * A Micrometer Observation per job run ({@code cxc.scheduler.job}, tagged with the scheduler; the
 * job's id and attempt as high-cardinality values), on the worker's thread around the handler. With
 * {@code cxc.schedulers.<name>.trace-context=true} the submit is an Observation too ({@code
 * cxc.scheduler.submit}, a child of the submitting thread's current one), whose context the tracing
 * handlers inject into the job ({@link TraceCarryingCodec}) and extract in the worker: the run is a
 * child of the submit, in whichever process runs it.
 */
public final class SchedulerObservations implements JobRunObserver {

    static final String TRACEPARENT = "traceparent";

    private final ObservationRegistry registry;

    public SchedulerObservations(SchedulerWorkers workers, ObservationRegistry registry) {
        this.registry = registry;
        workers.observe(this);
    }

    @Override
    public <R> R around(String scheduler, Job<?> job, Callable<R> handle) throws Exception {
        String parent = TraceCarryingCodec.takeLastRead();
        ReceiverContext<Map<String, String>> context = new ReceiverContext<>(Map::get);
        context.setCarrier(parent == null ? Map.of() : Map.of(TRACEPARENT, parent));
        return Observation.createNotStarted("cxc.scheduler.job", () -> context, registry)
                .contextualName(scheduler + " job")
                .lowCardinalityKeyValue("scheduler", scheduler)
                .highCardinalityKeyValue("job.id", Long.toString(job.id()))
                .highCardinalityKeyValue("job.attempt", Long.toString(job.attempt()))
                .observeChecked(handle::call);
    }

    /**
     * The submitting thread's trace context for {@code scheduler}'s jobs: a {@code
     * cxc.scheduler.submit} Observation's injected {@code traceparent}, or null without a registry
     * (or tracing). The registry is looked up at each submit: it may be made after the scheduler.
     */
    public static Supplier<@Nullable String> submitContext(
            BeanRegistry.SupplierContext beans, String scheduler) {
        ObjectProvider<ObservationRegistry> registries =
                beans.beanProvider(ObservationRegistry.class);
        return () -> {
            ObservationRegistry registry = registries.getIfAvailable();
            if (registry == null || registry.isNoop()) {
                return null;
            }
            Map<String, String> carrier = new HashMap<>();
            SenderContext<Map<String, String>> context = new SenderContext<>(Map::put);
            context.setCarrier(carrier);
            Observation.createNotStarted("cxc.scheduler.submit", () -> context, registry)
                    .contextualName(scheduler + " submit")
                    .lowCardinalityKeyValue("scheduler", scheduler)
                    .start()
                    .stop();
            return carrier.get(TRACEPARENT);
        };
    }

    @Override
    public String toString() {
        return "SchedulerObservations";
    }
}
