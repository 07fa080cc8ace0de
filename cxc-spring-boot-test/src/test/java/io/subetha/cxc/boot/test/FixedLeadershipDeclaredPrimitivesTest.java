package io.subetha.cxc.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.SchedulerCodecs;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.boot.autoconfigure.CxcDispatchAutoConfiguration;
import io.subetha.cxc.boot.test.AutoConfigureCxc.Directory;
import io.subetha.cxc.boot.test.AutoConfigureCxc.Leadership;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.primitive.MappedPrimitive;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.MapPropertySource;

/**
 * {@code @AutoConfigureCxc(leadership = ALWAYS|NEVER)} with every primitive the starter declares by
 * properties: the context starts, the primitive is there and the leadership is the fixed one.
 */
class FixedLeadershipDeclaredPrimitivesTest {

    /** One declaration of each declarable kind, as a user writes it. */
    static final List<String> DECLARATIONS =
            List.of(
                    "cxc.barriers.phases.capacity=8",
                    "cxc.watchdogs.jobs.grace-epochs=3",
                    "cxc.pass-registries.calls.max-passes=64",
                    "cxc.progress-tasks.import.total=1000",
                    "cxc.regions.blobs.capacity-bytes=1048576",
                    "cxc.nan-values.flags.cells=64",
                    "cxc.nan-tagged-values.state.max-user-tag=15",
                    "cxc.schedulers.jobs.capacity=1024");

    @TempDir Path temp;

    @ImportAutoConfiguration({CxcAutoConfiguration.class, CxcDispatchAutoConfiguration.class})
    static class Config {
        @Bean
        SchedulerCodecs<Long, Long> jobsCodecs() {
            return SchedulerCodecs.of("jobs", FixedCodec.INT64, FixedCodec.INT64);
        }
    }

    static List<Arguments> declarations() {
        List<Arguments> all = new ArrayList<>();
        for (Leadership leadership : List.of(Leadership.ALWAYS, Leadership.NEVER)) {
            for (String declaration : DECLARATIONS) {
                all.add(Arguments.of(leadership, declaration));
            }
        }
        return all;
    }

    private AnnotationConfigApplicationContext context(
            Directory directory, Leadership leadership, String declaration) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        String[] pair = declaration.split("=", 2);
        context.getEnvironment()
                .getPropertySources()
                .addLast(
                        new MapPropertySource(
                                "user",
                                Map.of(
                                        pair[0],
                                        pair[1],
                                        "cxc.directory",
                                        temp.resolve("app").toString())));
        new CxcTestContextCustomizer(directory, leadership).customizeContext(context, null);
        context.register(Config.class);
        return context;
    }

    @ParameterizedTest
    @MethodSource("declarations")
    void everyDeclaredPrimitiveStartsUnderAFixedLeadership(
            Leadership leadership, String declaration) {
        String name = declaration.split("\\.")[2];
        try (AnnotationConfigApplicationContext context =
                context(Directory.TEMP, leadership, declaration)) {
            context.refresh();
            MappedPrimitive primitive = context.getBean(name, MappedPrimitive.class);
            assertThat(primitive.file()).exists();
            CxcLeadership fixed = context.getBean(CxcLeadership.class);
            assertThat(fixed).isInstanceOf(FixedLeadership.class);
            assertThat(fixed.isLeader()).isEqualTo(leadership == Leadership.ALWAYS);
            assertThat(fixed.termIfLeader())
                    .isEqualTo(leadership == Leadership.ALWAYS ? FixedLeadership.TERM : -1);
        }
        assertThat(temp.resolve("app")).doesNotExist();
    }

    /**
     * In the application's own directory a fixed leadership takes no part in its election, so a
     * watchdog (which moves work between the election's participants) is refused, naming the
     * annotation that turned the election off rather than a property the user did not write.
     */
    @Test
    void aWatchdogInTheConfiguredDirectoryIsRefusedNamingTheAnnotation() {
        try (AnnotationConfigApplicationContext context =
                context(
                        Directory.CONFIGURED,
                        Leadership.ALWAYS,
                        "cxc.watchdogs.jobs.grace-epochs=3")) {
            assertThatThrownBy(context::refresh)
                    .hasStackTraceContaining(
                            "cxc.leader.enabled=false (from @AutoConfigureCxc(directory ="
                                    + " CONFIGURED, leadership = ALWAYS))");
        }
        assertThat(Files.exists(temp.resolve("app").resolve("jobs.watchdog"))).isFalse();
    }
}
