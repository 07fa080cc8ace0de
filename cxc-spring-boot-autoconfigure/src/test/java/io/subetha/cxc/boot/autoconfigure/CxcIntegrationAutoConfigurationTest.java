package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.integration.IntegrationLeaderEvents;
import io.subetha.cxc.election.SharedLeaderElection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.annotation.Role;
import org.springframework.integration.annotation.ServiceActivator;
import org.springframework.integration.channel.DirectChannel;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.support.SmartLifecycleRoleController;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.MessageDeliveryException;
import org.springframework.messaging.support.GenericMessage;

/**
 * A real Spring Integration endpoint with {@code @Role("leader")} starts when this process gains
 * leadership and stops when it steps down, through Spring Integration's own role controller.
 */
class CxcIntegrationAutoConfigurationTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class, CxcIntegrationAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"), "cxc.leader.tick-interval=1h")
                .withUserConfiguration(Flow.class);
    }

    @Test
    void aRoleEndpointRunsWhileThisProcessLeads() {
        runner().run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            SmartLifecycleRoleController roles =
                                    context.getBean(SmartLifecycleRoleController.class);
                            Flow flow = context.getBean(Flow.class);
                            MessageChannel in = context.getBean("in", MessageChannel.class);
                            // The first tick (in the ticker's start) made this process leader.
                            assertThat(context.getBean(CxcLeadership.class).isLeader()).isTrue();
                            // The event comes on cxc's events thread, a moment after the edge.
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() -> roles.allEndpointsRunning("leader"));
                            in.send(new GenericMessage<>("while leading"));
                            assertThat(flow.handled).containsExactly("while leading");
                            assertThat(flow.events)
                                    .singleElement()
                                    .isInstanceOf(OnGrantedEvent.class)
                                    .extracting(AbstractLeaderEvent::getRole)
                                    .isEqualTo("leader");

                            // Yield through Spring Integration's context: cxc steps down.
                            flow.events.get(0).getContext().yield();
                            assertThat(context.getBean(SharedLeaderElection.class).currentLeader())
                                    .isEmpty();
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() -> roles.noEndpointsRunning("leader"));
                            assertThatThrownBy(() -> in.send(new GenericMessage<>("after")))
                                    .isInstanceOf(MessageDeliveryException.class);
                            assertThat(flow.handled).containsExactly("while leading");
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() -> flow.events.size() == 2);
                            assertThat(flow.events.get(1).getContext().isLeader()).isFalse();
                        });
    }

    @Test
    void theRoleIsTheLeaderName() {
        runner().withPropertyValues("cxc.leader.name", "cxc.leader.name=billing")
                .run(
                        context -> {
                            List<AbstractLeaderEvent> events = context.getBean(Flow.class).events;
                            await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
                            assertThat(events)
                                    .singleElement()
                                    .extracting(AbstractLeaderEvent::getRole)
                                    .isEqualTo("billing");
                        });
    }

    @Test
    void backsOffWithoutSpringIntegration() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class, CxcIntegrationAutoConfiguration.class))
                .withPropertyValues("cxc.directory=" + temp.resolve("cxc"))
                .withClassLoader(new FilteredClassLoader("org.springframework.integration"))
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context).doesNotHaveBean(IntegrationLeaderEvents.class);
                        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIntegration
    static class Flow {
        final List<String> handled = new CopyOnWriteArrayList<>();
        final List<AbstractLeaderEvent> events = new CopyOnWriteArrayList<>();

        @Bean
        DirectChannel in() {
            return new DirectChannel();
        }

        @ServiceActivator(inputChannel = "in", autoStartup = "false")
        @Role("leader")
        public void handle(String payload) {
            handled.add(payload);
        }

        @org.springframework.context.event.EventListener
        public void on(AbstractLeaderEvent event) {
            events.add(event);
        }
    }
}
