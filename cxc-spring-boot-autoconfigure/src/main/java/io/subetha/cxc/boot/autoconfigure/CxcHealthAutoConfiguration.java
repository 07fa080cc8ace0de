package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.actuate.health.CxcHealthIndicator;
import io.subetha.cxc.boot.actuate.health.SchedulerHealth;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/** The {@code cxc} health contributor, when Boot's health support is present. */
@AutoConfiguration(after = CxcAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LeaderTicker.class)
public final class CxcHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "cxcHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("cxc")
    HealthIndicator cxcHealthIndicator(LeaderTicker ticker, ObjectProvider<LeadershipTier> global) {
        return new CxcHealthIndicator(ticker, global.getIfAvailable());
    }

    /** {@code cxcSchedulers}: one health per declared scheduler. */
    @Bean
    @ConditionalOnMissingBean(name = "cxcSchedulersHealthContributor")
    @ConditionalOnEnabledHealthIndicator("cxc")
    @ConditionalOnBean(SchedulerWorkers.class)
    CompositeHealthContributor cxcSchedulersHealthContributor(SchedulerWorkers workers) {
        return SchedulerHealth.of(workers);
    }
}
