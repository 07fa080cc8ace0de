package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.boot.actuate.endpoint.SchedulerJobsEndpoint;
import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import io.subetha.cxc.observe.PrimitiveRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code cxc} actuator endpoint, when Actuator is present and the endpoint exposed. */
@AutoConfiguration(after = CxcAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(PrimitiveRegistry.class)
public final class CxcEndpointAutoConfiguration {

    // On the method, not the class: the condition's own class must not be loaded when Actuator
    // is absent.
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    CxcEndpoint cxcEndpoint(
            PrimitiveRegistry registry,
            ObjectProvider<LeaderTicker> ticker,
            ObjectProvider<CxcFileLocation> location,
            ObjectProvider<CxcParticipants> participants,
            ObjectProvider<LeadershipTier> global) {
        CxcFileLocation where = location.getIfAvailable();
        return new CxcEndpoint(
                registry,
                ticker.getIfAvailable(),
                where == null ? null : where.directory(),
                participants.getIfAvailable(),
                global.getIfAvailable());
    }

    /** {@code /actuator/cxcjobs}: the declared schedulers' failed jobs and history. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    @ConditionalOnBean(SchedulerWorkers.class)
    SchedulerJobsEndpoint cxcJobsEndpoint(SchedulerWorkers workers) {
        return new SchedulerJobsEndpoint(workers);
    }
}
