package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.boot.liveness.CxcParticipants;
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
import org.springframework.core.env.Environment;

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
            ObjectProvider<CxcProperties> properties,
            ObjectProvider<CxcParticipants> participants,
            ObjectProvider<LeadershipTier> global,
            Environment environment) {
        CxcProperties props = properties.getIfAvailable();
        return new CxcEndpoint(
                registry,
                ticker.getIfAvailable(),
                props == null ? null : CxcDirectory.resolve(props, environment),
                participants.getIfAvailable(),
                global.getIfAvailable());
    }
}
