package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A rolling deploy changes a declared primitive's creation setting while the file, made by the old
 * version, lives on: the new version opens the file's settings and warns naming both values and the
 * property; a difference in what the file means (a watchdog's heartbeat table) is refused.
 */
@ExtendWith(OutputCaptureExtension.class)
class RollingDeployTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                .withPropertyValues("cxc.directory=" + temp.resolve("cxc"));
    }

    static List<Arguments> changes() {
        return List.of(
                Arguments.of("cxc.barriers.phases.capacity", "8", "4"),
                Arguments.of("cxc.watchdogs.jobs.work-per-slot", "16", "8"),
                Arguments.of("cxc.pass-registries.calls.max-passes", "64", "32"),
                Arguments.of("cxc.progress-tasks.import.total", "1000", "2000"),
                Arguments.of("cxc.regions.blobs.capacity-bytes", "1048576", "65536"),
                Arguments.of("cxc.nan-values.flags.cells", "64", "32"),
                Arguments.of("cxc.nan-tagged-values.state.max-user-tag", "15", "7"),
                Arguments.of("cxc.event-logs.orders.capacity", "64", "128"));
    }

    @ParameterizedTest
    @MethodSource("changes")
    void theFilesSettingIsOpenedAndTheChangeIsNamed(
            String property, String before, String after, CapturedOutput output) {
        String name = property.split("\\.")[2];
        runner().withPropertyValues(property + "=" + before)
                .run(context -> assertThat(context).hasNotFailed().hasBean(name));
        runner().withPropertyValues(property + "=" + after)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed().hasBean(name);
                            context.getBean(name); // opened
                        });
        assertThat(output.getAll())
                .contains(property + "=" + after, "the file's " + before, "WARN");
    }

    @Test
    void aWatchdogOverAnotherHeartbeatTableIsRefused() {
        runner().withPropertyValues("cxc.watchdogs.jobs.grace-epochs=3")
                .run(context -> assertThat(context).hasNotFailed());
        runner().withPropertyValues(
                        "cxc.watchdogs.jobs.grace-epochs=3", "cxc.heartbeat.name=others")
                .run(
                        context -> {
                            assertThat(context).hasFailed();
                            assertThat(context.getStartupFailure())
                                    .rootCause()
                                    .isInstanceOf(InvalidCxcPropertyException.class)
                                    .hasMessageContaining("cxc.heartbeat.name")
                                    .hasMessageContaining("participants.heartbeat")
                                    .hasMessageContaining("others.heartbeat");
                        });
    }
}
