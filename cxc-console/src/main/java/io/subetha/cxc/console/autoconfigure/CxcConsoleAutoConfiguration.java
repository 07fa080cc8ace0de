package io.subetha.cxc.console.autoconfigure;

import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.boot.autoconfigure.CxcEndpointAutoConfiguration;
import io.subetha.cxc.boot.eventlog.DeclaredEventLogs;
import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import io.subetha.cxc.console.ConsoleOverview;
import io.subetha.cxc.console.ConsoleProperties;
import io.subetha.cxc.console.EventBoard;
import io.subetha.cxc.console.JobBoard;
import io.subetha.cxc.console.LeadershipHistory;
import io.subetha.cxc.console.LeaseTables;
import io.subetha.cxc.console.ScheduleBoard;
import io.subetha.cxc.console.Schedulers;
import io.subetha.cxc.console.action.ConsoleAction;
import io.subetha.cxc.console.action.DispatchAction;
import io.subetha.cxc.console.action.FailedJobAction;
import io.subetha.cxc.console.action.StepDown;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.observe.PrimitiveRegistry;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * The operations console at {@code cxc.console.path} ({@code /cxc}) of a servlet web application
 * that runs cxc, unless {@code cxc.console.enabled=false}; its actions only with {@code
 * cxc.console.actions=true}.
 */
@AutoConfiguration(after = {CxcAutoConfiguration.class, CxcEndpointAutoConfiguration.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty(name = "cxc.console.enabled", matchIfMissing = true)
@ConditionalOnBean({PrimitiveRegistry.class, CxcPrimitives.class})
@EnableConfigurationProperties(ConsoleProperties.class)
public final class CxcConsoleAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(SharedLeaderElection.class)
    LeadershipHistory cxcConsoleLeadershipHistory(SharedLeaderElection election) {
        return new LeadershipHistory(election, Clock.systemUTC());
    }

    @Bean
    @ConditionalOnMissingBean
    LeaseTables cxcConsoleLeaseTables(PrimitiveRegistry registry) {
        return new LeaseTables(registry, Clock.systemUTC());
    }

    @Bean
    @ConditionalOnMissingBean
    JobBoard cxcConsoleJobBoard(PrimitiveRegistry registry) {
        return new JobBoard(registry, Clock.systemUTC());
    }

    @Bean
    @ConditionalOnMissingBean
    Schedulers cxcConsoleSchedulers(PrimitiveRegistry registry) {
        return new Schedulers(registry);
    }

    @Bean
    @ConditionalOnMissingBean
    ScheduleBoard cxcConsoleScheduleBoard(
            Schedulers schedulers, ObjectProvider<SchedulerWorkers> workers) {
        return new ScheduleBoard(schedulers, workers.getIfAvailable());
    }

    @Bean
    @ConditionalOnMissingBean
    EventBoard cxcConsoleEventBoard(ObjectProvider<DeclaredEventLogs> logs) {
        return new EventBoard(logs.getIfAvailable());
    }

    @Bean
    @ConditionalOnMissingBean
    ConsoleOverview cxcConsoleOverview(
            PrimitiveRegistry registry,
            CxcPrimitives primitives,
            ObjectProvider<CxcEndpoint> endpoint,
            ObjectProvider<LeaderTicker> ticker,
            ObjectProvider<CxcParticipants> participants,
            ObjectProvider<LeadershipTier> global,
            ObjectProvider<LeadershipHistory> history,
            ObjectProvider<ConsoleAction> actions,
            ConsoleProperties properties) {
        LeaderTicker leaderTicker = ticker.getIfAvailable();
        // The actuator's endpoint bean when it is exposed; otherwise the same reader, made here.
        CxcEndpoint reader =
                endpoint.getIfAvailable(
                        () ->
                                new CxcEndpoint(
                                        registry,
                                        leaderTicker,
                                        primitives.directory(),
                                        participants.getIfAvailable(),
                                        global.getIfAvailable()));
        List<String> offered =
                properties.isActions()
                        ? actions.orderedStream().map(ConsoleAction::name).toList()
                        : List.of();
        return new ConsoleOverview(
                reader,
                history.getIfAvailable(),
                leaderTicker == null ? null : leaderTicker.tickInterval(),
                offered,
                Clock.systemUTC());
    }

    /** The controllers on the application's port, unless a separate management port serves them. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(OnApplicationPort.class)
    @Import(ConsoleWeb.class)
    static class OnTheApplicationsPort {}

    /**
     * With {@code cxc.console.actions=true}: the console's actions (step down; re-run or delete a
     * failed job; pause or resume a scheduler's dispatch).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "cxc.console.actions")
    static class Actions {

        @Bean
        @ConditionalOnBean(LeaderTicker.class)
        @ConditionalOnMissingBean
        StepDown cxcConsoleStepDown(LeaderTicker ticker) {
            return new StepDown(ticker);
        }

        @Bean
        @ConditionalOnMissingBean(name = "cxcConsoleRerunJob")
        FailedJobAction cxcConsoleRerunJob(Schedulers schedulers) {
            return FailedJobAction.rerun(schedulers);
        }

        @Bean
        @ConditionalOnMissingBean(name = "cxcConsoleDeleteJob")
        FailedJobAction cxcConsoleDeleteJob(Schedulers schedulers) {
            return FailedJobAction.delete(schedulers);
        }

        @Bean
        @ConditionalOnMissingBean(name = "cxcConsolePauseScheduler")
        DispatchAction cxcConsolePauseScheduler(Schedulers schedulers) {
            return DispatchAction.pause(schedulers);
        }

        @Bean
        @ConditionalOnMissingBean(name = "cxcConsoleResumeScheduler")
        DispatchAction cxcConsoleResumeScheduler(Schedulers schedulers) {
            return DispatchAction.resume(schedulers);
        }
    }
}
