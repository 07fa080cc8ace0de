package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.integration.IntegrationLeaderEvents;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Spring Integration's leadership events ({@code OnGrantedEvent}, {@code OnRevokedEvent}) beside
 * cxc's own, when Spring Integration is on the classpath: endpoints with {@code @Role} (the role is
 * {@code cxc.leader.name}, {@code leader} by default) then run on the leader only.
 */
@AutoConfiguration(after = CxcAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.integration.leader.event.OnGrantedEvent")
@ConditionalOnBooleanProperty(name = "cxc.enabled", matchIfMissing = true)
@ConditionalOnBean(CxcLeadership.class)
public final class CxcIntegrationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IntegrationLeaderEvents cxcIntegrationLeaderEvents(
            ApplicationEventPublisher publisher,
            CxcLeadership leadership,
            Environment environment) {
        return new IntegrationLeaderEvents(
                publisher, leadership, environment.getProperty("cxc.leader.name", "leader"));
    }
}
