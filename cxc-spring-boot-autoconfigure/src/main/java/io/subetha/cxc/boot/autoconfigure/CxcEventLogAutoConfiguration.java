package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.CxcEventPublisher;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.eventlog.DeclaredEventLogs;
import io.subetha.cxc.boot.eventlog.DeclaredEventPublisher;
import io.subetha.cxc.boot.eventlog.EventListenerObserver;
import io.subetha.cxc.boot.eventlog.EventLogListeners;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Event logs: the {@link CxcEventPublisher} over the logs declared by {@code
 * cxc.event-logs.<name>.*} (the logs themselves, their reader tables and their fold on the leader's
 * ticks are declared by {@link DeclaredPrimitivesRegistrar}), and this copy's
 * {@code @CxcEventListener} methods, each reading as {@code <cxc.listeners.copy-name>/<id>}.
 */
@AutoConfiguration(after = CxcAutoConfiguration.class)
public final class CxcEventLogAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    CxcEventPublisher cxcEventPublisher(ObjectProvider<DeclaredEventLogs> logs) {
        return new DeclaredEventPublisher(logs);
    }

    @Bean
    static EventLogListeners cxcEventLogListeners(
            ConfigurableListableBeanFactory beans,
            ObjectProvider<DeclaredEventLogs> logs,
            ObjectProvider<EventListenerObserver> observer,
            Environment environment) {
        String given =
                Binder.get(environment).bind("cxc.listeners.copy-name", String.class).orElse(null);
        if (given != null) {
            if (given.isBlank() || given.contains("/")) {
                throw new InvalidCxcPropertyException(
                        "cxc.listeners.copy-name",
                        given,
                        "a copy name is not blank and has no '/' (it is the first part of its"
                                + " listeners' reader names, <copy-name>/<listener id>)",
                        "Set cxc.listeners.copy-name to e.g. orders-2.");
            }
            return new EventLogListeners(
                    beans, logs, observer, given, "cxc.listeners.copy-name=" + given);
        }
        String application = environment.getProperty("spring.application.name", "application");
        String port = environment.getProperty("server.port");
        String copyName = port == null ? application : application + "-" + port;
        return new EventLogListeners(
                beans,
                logs,
                observer,
                copyName,
                "the default, "
                        + copyName
                        + ", is {spring.application.name}"
                        + (port == null ? " (no server.port is set)" : "-{server.port}"));
    }
}
