package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.SchedulerCodecs;
import io.subetha.cxc.boot.scheduling.RecurringJob;
import io.subetha.cxc.boot.scheduling.RecurringJobs;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.context.annotation.Bean;

/**
 * The recurring jobs declared by {@code cxc.schedulers.<name>.recurring.<job>.*}: registered in
 * their schedulers' timetables by every copy at start, fired on every tick ({@link RecurringJobs}).
 */
@AutoConfiguration(after = CxcAutoConfiguration.class)
public final class CxcRecurringJobsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @SuppressWarnings({"unchecked", "rawtypes"})
    RecurringJobs cxcRecurringJobs(CxcProperties properties, ListableBeanFactory beans) {
        List<RecurringJob> jobs = new ArrayList<>();
        Map<String, BackgroundScheduler<?, ?>> schedulers = new LinkedHashMap<>();
        properties
                .getSchedulers()
                .forEach(
                        (scheduler, declared) -> {
                            declared.getRecurring()
                                    .forEach(
                                            (name, job) ->
                                                    jobs.add(
                                                            RecurringJob.declared(
                                                                    scheduler,
                                                                    name,
                                                                    job.getCron(),
                                                                    job.getZone(),
                                                                    job.getFixedRate(),
                                                                    job.getFixedDelay(),
                                                                    job.getPayload(),
                                                                    job.isKeepResult())));
                            if (!declared.getRecurring().isEmpty()
                                    && beans.containsBean(scheduler)) {
                                schedulers.put(
                                        scheduler,
                                        beans.getBean(scheduler, BackgroundScheduler.class));
                            }
                        });
        List<SchedulerCodecs<?, ?>> codecs =
                (List) beans.getBeanProvider(SchedulerCodecs.class).orderedStream().toList();
        return new RecurringJobs(
                jobs, schedulers, codecs, ApplicationConversionService.getSharedInstance());
    }
}
