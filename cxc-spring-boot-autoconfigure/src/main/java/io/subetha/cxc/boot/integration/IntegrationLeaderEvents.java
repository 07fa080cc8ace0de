package io.subetha.cxc.boot.integration;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.LeadershipEvent;
import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.LeadershipLostEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

/**
 * Republishes cxc's leadership edges as Spring Integration's {@link OnGrantedEvent} / {@link
 * OnRevokedEvent}, with the role {@code cxc.leader.name}, so endpoints with {@code @Role("leader")}
 * start and stop with leadership through Spring Integration's {@code SmartLifecycleRoleController}.
 * The event's {@link Context} answers from the {@link CxcLeadership} bean; its {@code yield()}
 * steps this process down.
 */
public final class IntegrationLeaderEvents implements ApplicationListener<LeadershipEvent> {

    private final ApplicationEventPublisher publisher;
    private final CxcLeadership leadership;
    private final String role;
    private final Context context;

    public IntegrationLeaderEvents(
            ApplicationEventPublisher publisher, CxcLeadership leadership, String role) {
        this.publisher = publisher;
        this.leadership = leadership;
        this.role = role;
        this.context =
                new Context() {
                    @Override
                    public boolean isLeader() {
                        return IntegrationLeaderEvents.this.leadership.isLeader();
                    }

                    @Override
                    public void yield() {
                        IntegrationLeaderEvents.this.leadership.stepDown();
                    }

                    @Override
                    public String getRole() {
                        return IntegrationLeaderEvents.this.role;
                    }

                    @Override
                    public String toString() {
                        return "cxc leadership context[role=" + role + ", " + leadership + "]";
                    }
                };
    }

    @Override
    public void onApplicationEvent(LeadershipEvent event) {
        if (event instanceof LeadershipGainedEvent) {
            publisher.publishEvent(new OnGrantedEvent(this, context, role));
        } else if (event instanceof LeadershipLostEvent) {
            publisher.publishEvent(new OnRevokedEvent(this, context, role));
        }
    }
}
