package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.fanout.ProgressTask;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A progress task declared by properties: a bean by name over {directory}/{name}.progress, in
 * /actuator/cxc with its percent and as the gauge cxc.progress{task}.
 */
class CxcProgressTaskAutoConfigurationTest {

    @TempDir Path temp;

    @Test
    void aDeclaredTaskIsABeanInTheEndpointWithItsPercentAndAGauge() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "management.endpoints.web.exposure.include=cxc",
                        "cxc.progress-tasks.bookkeeping.total=200")
                .withBean(SimpleMeterRegistry.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                            ProgressTask task = context.getBean("bookkeeping", ProgressTask.class);
                            assertThat(task.file())
                                    .isEqualTo(temp.resolve("cxc").resolve("bookkeeping.progress"));
                            assertThat(task.total()).isEqualTo(200);
                            task.advance(50);
                            assertThat(context.getBean(CxcEndpoint.class).cxc().primitives())
                                    .anySatisfy(
                                            p -> {
                                                assertThat(p.name())
                                                        .isEqualTo("bookkeeping.progress");
                                                assertThat(p.kind()).isEqualTo("progress-task");
                                                assertThat(p.state())
                                                        .containsEntry("percent", 25.0);
                                            });
                            assertThat(
                                            meters.get("cxc.progress")
                                                    .tag("task", "bookkeeping.progress")
                                                    .gauge()
                                                    .value())
                                    .isEqualTo(0.25);
                        });
    }

    @Test
    void aTotalBelowOneIsReportedAgainstTheProperty() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "cxc.progress-tasks.bookkeeping.total=0")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .hasMessageContaining(
                                                "cxc.progress-tasks.bookkeeping.total"));
    }
}
