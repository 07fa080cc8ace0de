package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.resolution.CascadeSharedLevel;
import io.subetha.cxc.resolution.SharedAsyncPointer;
import io.subetha.cxc.resolution.SharedUniversal;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The resolution family's codec-typed primitives, opened through {@link CxcPrimitives}. */
class ResolutionPrimitivesTest {

    @TempDir Path temp;

    @Configuration(proxyBeanMethods = false)
    static class Resolution {
        @Bean
        SharedAsyncPointer<Long> token(CxcPrimitives primitives) {
            return primitives.open(
                    "token",
                    (file, options) ->
                            SharedAsyncPointer.TYPE.openOrCreate(
                                    file,
                                    new SharedAsyncPointer.Settings<>(FixedCodec.INT64),
                                    options));
        }

        @Bean
        CascadeSharedLevel<Long, Long> prices(CxcPrimitives primitives) {
            return primitives.open(
                    "prices",
                    (file, options) ->
                            CascadeSharedLevel.TYPE.openOrCreate(
                                    file,
                                    new CascadeSharedLevel.Settings<>(
                                            256, FixedCodec.INT64, FixedCodec.INT64),
                                    options));
        }

        @Bean
        SharedUniversal<Long> members(CxcPrimitives primitives) {
            return primitives.open(
                    "members",
                    (file, options) ->
                            SharedUniversal.TYPE.openOrCreate(
                                    file,
                                    new SharedUniversal.Settings<>(64, FixedCodec.INT64),
                                    options));
        }
    }

    @Test
    void eachOpensInTheDirectoryShowsInTheEndpointCountsItsOwnOpsAndClosesWithTheContext() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "management.endpoints.web.exposure.include=cxc")
                .withUserConfiguration(Resolution.class)
                .withBean(SimpleMeterRegistry.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            @SuppressWarnings("unchecked")
                            SharedAsyncPointer<Long> token =
                                    context.getBean("token", SharedAsyncPointer.class);
                            @SuppressWarnings("unchecked")
                            CascadeSharedLevel<Long, Long> prices =
                                    context.getBean("prices", CascadeSharedLevel.class);
                            @SuppressWarnings("unchecked")
                            SharedUniversal<Long> members =
                                    context.getBean("members", SharedUniversal.class);
                            assertThat(token.file())
                                    .isEqualTo(temp.resolve("cxc").resolve("token.cxc"));
                            token.getOrFetch(() -> 7L, Duration.ofSeconds(30));
                            prices.insert(1L, 10L);
                            members.insert(3L);
                            members.containsKey(3L);

                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                            assertThat(count(meters, "token.cxc", "async-pointer", "get_or_fetch"))
                                    .isEqualTo(1);
                            assertThat(
                                            count(
                                                    meters,
                                                    "prices.cxc",
                                                    "cascade-shared-level",
                                                    "insert"))
                                    .isEqualTo(1);
                            assertThat(count(meters, "members.cxc", "shared-universal", "contains"))
                                    .isEqualTo(1);
                            assertThat(context.getBean(CxcEndpoint.class).cxc().primitives())
                                    .extracting(p -> p.name() + " " + p.kind())
                                    .contains(
                                            "token.cxc async-pointer",
                                            "prices.cxc cascade-shared-level",
                                            "members.cxc shared-universal");
                        });
    }

    static double count(MeterRegistry meters, String primitive, String kind, String op) {
        return meters.get("cxc.ops")
                .tags("primitive", primitive, "kind", kind, "op", op)
                .functionCounter()
                .count();
    }
}
