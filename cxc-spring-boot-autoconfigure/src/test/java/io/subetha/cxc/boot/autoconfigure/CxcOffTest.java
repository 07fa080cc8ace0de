package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.FanoutCodec;
import io.subetha.cxc.boot.SchedulerCodecs;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.primitive.MappedPrimitive;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code cxc.enabled=false}: the application starts as if it were alone, whatever it injects; its
 * primitives live in a private temporary directory that no other process shares, deleted when the
 * context closes; nothing is written to {@code cxc.directory}.
 */
@ExtendWith(OutputCaptureExtension.class)
class CxcOffTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcHealthAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class,
                                CxcDispatchAutoConfiguration.class))
                .withUserConfiguration(SchedulerCodecsOfJobs.class)
                .withPropertyValues("cxc.directory=" + temp.resolve("cxc"), "cxc.enabled=false");
    }

    static java.util.List<String> declarable() {
        return DeclaredPrimitivesRegistrar.DECLARABLE.stream().map(kind -> kind.example).toList();
    }

    /** Every declarable primitive, declared with cxc off: its bean exists and works alone. */
    @ParameterizedTest
    @MethodSource("declarable")
    void everyDeclaredPrimitiveIsMadeInAPrivateDirectory(String declaration) {
        String name = declaration.split("\\.")[2];
        AtomicReference<Path> file = new AtomicReference<>();
        ApplicationContextRunner runner = runner();
        if (declaration.startsWith("cxc.fanouts.")) {
            // Its file needs the item codec; a codec naming an undeclared fan-out is refused.
            runner =
                    runner.withBean(
                            FanoutCodec.class, () -> FanoutCodec.of(name, FixedCodec.INT64));
        }
        runner.withPropertyValues(declaration)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            MappedPrimitive primitive =
                                    context.getBean(name, MappedPrimitive.class);
                            file.set(primitive.file());
                            assertThat(primitive.file()).exists();
                            assertThat(primitive.file().startsWith(temp)).isFalse();
                            assertThat(context.getBean(CxcLeadership.class).isLeader()).isFalse();
                        });
        assertThat(temp.resolve("cxc")).doesNotExist();
        assertThat(file.get().getParent()).doesNotExist(); // deleted at close
    }

    @Test
    void primitivesTheApplicationOpensLiveInThePrivateDirectoryAndItIsLoggedOnce(
            CapturedOutput output) {
        runner().withUserConfiguration(OpensItsOwn.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            CxcPrimitives primitives = context.getBean(CxcPrimitives.class);
                            EventStateLog<?, ?> log = context.getBean(EventStateLog.class);
                            assertThat(log.file().getParent()).isEqualTo(primitives.directory());
                            assertThat(primitives.directory().startsWith(temp)).isFalse();
                            assertThat(Files.isDirectory(primitives.directory())).isTrue();
                        });
        assertThat(temp.resolve("cxc")).doesNotExist();
        String said = output.getOut() + output.getErr();
        assertThat(said.split("private directory", -1)).hasSize(2);
    }

    @Configuration(proxyBeanMethods = false)
    static class SchedulerCodecsOfJobs {
        @Bean
        SchedulerCodecs<Long, Long> jobsCodecs() {
            return SchedulerCodecs.of("jobs", FixedCodec.INT64, FixedCodec.INT64);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OpensItsOwn {
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
    }
}
