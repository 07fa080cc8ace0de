package io.subetha.cxc.boot.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationRegistry;
import io.subetha.cxc.boot.actuate.metrics.CxcMeterBinder;
import io.subetha.cxc.boot.actuate.metrics.EventListenerMeters;
import io.subetha.cxc.boot.actuate.metrics.FanoutMeters;
import io.subetha.cxc.boot.actuate.metrics.LeaderOnlyMeters;
import io.subetha.cxc.boot.actuate.metrics.SchedulerMeters;
import io.subetha.cxc.boot.actuate.metrics.SchedulerObservations;
import io.subetha.cxc.boot.aop.LeaderOnlyObserver;
import io.subetha.cxc.boot.eventlog.EventListenerObserver;
import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.boot.scheduling.FanoutWorkers;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.observe.PrimitiveRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * cxc's Micrometer meters, when Micrometer is present. Ordered after the composite registry's
 * auto-configuration, as Boot's own meter binders are: the registry a plain application scrapes
 * (Prometheus, or the composite over several) is defined by the export auto-configurations, which
 * all run before it; after {@code MetricsAutoConfiguration} alone, {@code @ConditionalOnBean
 * (MeterRegistry)} was judged before any registry existed and {@code cxc.leader.only} never
 * appeared.
 */
@AutoConfiguration(
        after = CxcAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure"
                    + ".CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(PrimitiveRegistry.class)
public final class CxcMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "cxcMeterBinder")
    MeterBinder cxcMeterBinder(
            PrimitiveRegistry registry,
            ObjectProvider<LeaderTicker> ticker,
            ObjectProvider<CxcParticipants> participants) {
        return new CxcMeterBinder(registry, ticker.getIfAvailable(), participants.getIfAvailable());
    }

    /** {@code cxc.fanout.items{fanout,priority}} and {@code cxc.fanout.handled{fanout,outcome}}. */
    @Bean
    @ConditionalOnMissingBean
    FanoutMeters cxcFanoutMeters(
            PrimitiveRegistry registry, ObjectProvider<FanoutWorkers> workers) {
        return new FanoutMeters(registry, workers.getIfAvailable());
    }

    /** {@code cxc.events.pending{log,listener}} and the listeners' skip counters. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(MeterRegistry.class)
    EventListenerObserver cxcEventListenerMeters(MeterRegistry registry) {
        return new EventListenerMeters(registry);
    }

    /** {@code cxc.leader.only{class,method,outcome}}, and the opt-in Observation. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(MeterRegistry.class)
    LeaderOnlyObserver cxcLeaderOnlyMeters(
            MeterRegistry registry,
            ObjectProvider<ObservationRegistry> observations,
            CxcProperties properties) {
        return new LeaderOnlyMeters(
                registry,
                properties.getLeader().isObservations() ? observations.getIfAvailable() : null);
    }

    /** {@code cxc.scheduler.jobs}, {@code .executions} and {@code .run} of declared schedulers. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(SchedulerWorkers.class)
    SchedulerMeters cxcSchedulerMeters(SchedulerWorkers workers) {
        return new SchedulerMeters(workers);
    }

    /** An Observation per job run, the submit's child when jobs carry their trace context. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(SchedulerWorkers.class)
    SchedulerObservations cxcSchedulerObservations(
            SchedulerWorkers workers, ObjectProvider<ObservationRegistry> registry) {
        return new SchedulerObservations(
                workers, registry.getIfAvailable(() -> ObservationRegistry.NOOP));
    }
}
