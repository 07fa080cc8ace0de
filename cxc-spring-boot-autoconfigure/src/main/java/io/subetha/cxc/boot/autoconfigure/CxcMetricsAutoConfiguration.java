package io.subetha.cxc.boot.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationRegistry;
import io.subetha.cxc.boot.actuate.metrics.CxcMeterBinder;
import io.subetha.cxc.boot.actuate.metrics.EventListenerMeters;
import io.subetha.cxc.boot.actuate.metrics.LeaderOnlyMeters;
import io.subetha.cxc.boot.aop.LeaderOnlyObserver;
import io.subetha.cxc.boot.eventlog.EventListenerObserver;
import io.subetha.cxc.boot.liveness.CxcParticipants;
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
}
