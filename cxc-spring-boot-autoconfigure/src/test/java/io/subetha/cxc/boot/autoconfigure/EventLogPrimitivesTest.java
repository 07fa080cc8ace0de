package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.versioned.SharedVersionedChain;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The event log and the versioned chain opened by name through {@link CxcPrimitives}: in {@code
 * /actuator/cxc} with their state (pending, emitted, folded; current version) and in {@code
 * cxc.ops} with their own ops.
 */
class EventLogPrimitivesTest {

    @TempDir Path temp;

    @Configuration(proxyBeanMethods = false)
    static class Logs {
        @Bean
        EventStateLog<Long, Long> requests(CxcPrimitives primitives) {
            return primitives.open(
                    "requests",
                    (file, options) ->
                            EventStateLog.TYPE.openOrCreate(
                                    file,
                                    new EventStateLog.Settings<>(
                                            64, FixedCodec.INT64, FixedCodec.INT64, 0L),
                                    options));
        }

        @Bean
        SharedVersionedChain<Long> settings(CxcPrimitives primitives) {
            return primitives.open(
                    "settings",
                    (file, options) ->
                            SharedVersionedChain.TYPE.openOrCreate(
                                    file,
                                    new SharedVersionedChain.Settings<>(8, FixedCodec.INT64),
                                    options));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aLogAndAChainOpenedByNameShowTheirStateAndOps() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "management.endpoints.web.exposure.include=cxc")
                .withUserConfiguration(Logs.class)
                .withBean(SimpleMeterRegistry.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            var log = (EventStateLog<Long, Long>) context.getBean("requests");
                            var chain = (SharedVersionedChain<Long>) context.getBean("settings");
                            for (long i = 1; i <= 3; i++) {
                                log.emit(i);
                            }
                            log.drainAndFold(Long::sum);
                            log.emit(10L);
                            chain.push(7L);
                            chain.push(8L);

                            var primitives = context.getBean(CxcEndpoint.class).cxc().primitives();
                            assertThat(primitives)
                                    .anySatisfy(
                                            p -> {
                                                assertThat(p.name()).isEqualTo("requests.cxc");
                                                assertThat(p.kind()).isEqualTo("event-state-log");
                                                assertThat(p.state())
                                                        .containsEntry("emitted", 4L)
                                                        .containsEntry("folded", 3L)
                                                        .containsEntry("pending", 1L);
                                                assertThat(p.ops())
                                                        .containsKeys(
                                                                "emit",
                                                                "drain_fold",
                                                                "read_current");
                                            })
                                    .anySatisfy(
                                            p -> {
                                                assertThat(p.kind()).isEqualTo("versioned-chain");
                                                assertThat(p.state())
                                                        .containsEntry("currentVersion", 2L);
                                            });
                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                            assertThat(
                                            meters.get("cxc.ops")
                                                    .tags(
                                                            "primitive", "requests.cxc",
                                                            "kind", "event-state-log",
                                                            "op", "emit")
                                                    .functionCounter()
                                                    .count())
                                    .isEqualTo(4);
                            assertThat(log.readCurrent()).isEqualTo(6);
                        });
    }
}
