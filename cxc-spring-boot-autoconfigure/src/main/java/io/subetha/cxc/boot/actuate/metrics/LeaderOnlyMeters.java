package io.subetha.cxc.boot.actuate.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.subetha.cxc.boot.aop.LeaderOnlyObserver;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * {@code cxc.leader.only{class,method,outcome}}: every {@code @LeaderOnly} call, counted as {@code
 * ran}, {@code skipped} (this process did not lead) or {@code refused} (it led, but was shutting
 * down). Boot's {@code tasks.scheduled.execution} counts a skipped run as a successful one; this
 * tells who really ran. Every method gets all three series from its first call, so a dashboard's
 * rate over them never starts from a missing series. With {@code cxc.leader.observations}, each
 * call that runs is also an Observation {@code cxc.leader.only.run} (a timer; a span where tracing
 * is set up), with the term as a high-cardinality key.
 */
public final class LeaderOnlyMeters implements LeaderOnlyObserver {

    static final String COUNTER = "cxc.leader.only";
    static final String OBSERVATION = "cxc.leader.only.run";

    private final MeterRegistry registry;
    private final @Nullable ObservationRegistry observations;

    /**
     * @param observations null to count only
     */
    public LeaderOnlyMeters(MeterRegistry registry, @Nullable ObservationRegistry observations) {
        this.registry = registry;
        this.observations = observations;
    }

    @Override
    public Site site(Class<?> type, Method method) {
        Outcome[] outcomes = Outcome.values();
        Counter[] counters = new Counter[outcomes.length];
        for (Outcome outcome : outcomes) {
            counters[outcome.ordinal()] =
                    Counter.builder(COUNTER)
                            .description(
                                    "@LeaderOnly calls by outcome: ran (this process led), skipped"
                                            + " (it did not), refused (it led but was shutting"
                                            + " down)")
                            .tag("class", type.getName())
                            .tag("method", method.getName())
                            .tag("outcome", outcome.tag())
                            .register(registry);
        }
        ObservationRegistry observing = observations;
        if (observing == null) {
            return outcome -> counters[outcome.ordinal()].increment();
        }
        String className = type.getName();
        String methodName = method.getName();
        return new Site() {
            @Override
            public void count(Outcome outcome) {
                counters[outcome.ordinal()].increment();
            }

            @Override
            public @Nullable Object run(MethodInvocation invocation, long term) throws Throwable {
                Observation observation =
                        Observation.createNotStarted(OBSERVATION, observing)
                                .contextualName(type.getSimpleName() + "." + methodName)
                                .lowCardinalityKeyValue("class", className)
                                .lowCardinalityKeyValue("method", methodName)
                                .highCardinalityKeyValue("term", Long.toString(term));
                return observation.observeChecked(invocation::proceed);
            }
        };
    }
}
