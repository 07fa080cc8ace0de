package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The codec-typed fan-out primitives, opened through {@link CxcPrimitives}. */
class CxcFanoutPrimitivesTest {

    @TempDir Path temp;

    @Configuration(proxyBeanMethods = false)
    static class FanoutBeans {
        @Bean
        PriorityFanout<Long> work(CxcPrimitives primitives) {
            return primitives.open(
                    "work",
                    (file, options) ->
                            PriorityFanout.TYPE.openOrCreate(
                                    file,
                                    new PriorityFanout.Settings<>(64, FixedCodec.INT64),
                                    options));
        }

        @Bean
        BackgroundScheduler<Long, Long> jobs(CxcPrimitives primitives) {
            return primitives.open(
                    "jobs",
                    (file, options) ->
                            BackgroundScheduler.TYPE.openOrCreate(
                                    file,
                                    new BackgroundScheduler.Settings<>(
                                            64, FixedCodec.INT64, FixedCodec.INT64),
                                    options));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theFanoutAndTheSchedulerShowInTheEndpointAndInCxcOps() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "management.endpoints.web.exposure.include=cxc")
                .withUserConfiguration(FanoutBeans.class)
                .withBean(SimpleMeterRegistry.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                            PriorityFanout<Long> work =
                                    context.getBean("work", PriorityFanout.class);
                            BackgroundScheduler<Long, Long> jobs =
                                    context.getBean("jobs", BackgroundScheduler.class);
                            work.submit(3, 7L);
                            jobs.submit(1L);
                            jobs.submit(2L);
                            Job<Long> job = jobs.receive(ProcessHandle.current().pid()).get();
                            assertThat(jobs.complete(job, 10L)).isTrue();
                            assertThat(context.getBean(CxcEndpoint.class).cxc().primitives())
                                    .anySatisfy(
                                            p -> {
                                                assertThat(p.name()).isEqualTo("work.cxc");
                                                assertThat(p.kind()).isEqualTo("priority-fanout");
                                                assertThat(p.state()).containsEntry("depth", 1L);
                                            })
                                    .anySatisfy(
                                            p -> {
                                                assertThat(p.name()).isEqualTo("jobs.cxc");
                                                assertThat(p.kind())
                                                        .isEqualTo("background-scheduler");
                                                assertThat(p.state())
                                                        .containsEntry("queued", 1L)
                                                        .containsEntry("done", 1L);
                                            });
                            assertThat(
                                            meters.get("cxc.ops")
                                                    .tags(
                                                            "primitive", "work.cxc",
                                                            "kind", "priority-fanout",
                                                            "op", "submit")
                                                    .functionCounter()
                                                    .count())
                                    .isEqualTo(1);
                            assertThat(jobs.collector().take(8)).hasSize(1);
                        });
    }
}
