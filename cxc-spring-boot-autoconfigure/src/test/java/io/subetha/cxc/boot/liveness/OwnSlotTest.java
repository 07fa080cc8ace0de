package io.subetha.cxc.boot.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * "My slot": this process's slot in the participants' table from {@link CxcParticipants}, and a
 * declared watchdog's work assigned to, listed for and completed by this process without the caller
 * knowing the slot.
 */
class OwnSlotTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "cxc.watchdogs.jobs.work-per-slot=8");
    }

    @Test
    void theSlotIsTheOneThisProcessHoldsAndWatchdogWorkGoesToIt() {
        runner().run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            CxcParticipants participants = context.getBean(CxcParticipants.class);
                            HeartbeatTable table = context.getBean(HeartbeatTable.class);
                            int slot = participants.mySlot();
                            assertThat(slot).isNotNegative();
                            assertThat(table.scan())
                                    .anySatisfy(
                                            s -> {
                                                assertThat(s.slot()).isEqualTo(slot);
                                                assertThat(s.pid()).isEqualTo(Pids.current());
                                            });
                            assertThat(participants.self())
                                    .hasValueSatisfying(
                                            me -> assertThat(me.slot()).isEqualTo(slot));

                            FailoverWatchdog jobs = context.getBean("jobs", FailoverWatchdog.class);
                            participants.assign(jobs, 42);
                            participants.assign(jobs, 43);
                            assertThat(jobs.workOf(slot)).containsExactly(42L, 43L);
                            assertThat(participants.myWork(jobs)).containsExactly(42L, 43L);
                            assertThat(participants.complete(jobs, 42)).isTrue();
                            assertThat(participants.myWork(jobs)).containsExactly(43L);
                        });
    }

    @Test
    void aWatchdogOverAnotherTableIsRefused() {
        runner().run(
                        context -> {
                            CxcParticipants participants = context.getBean(CxcParticipants.class);
                            Path other = temp.resolve("other");
                            java.nio.file.Files.createDirectories(other);
                            try (HeartbeatTable table =
                                            HeartbeatTable.openOrCreate(
                                                    other.resolve("p.heartbeat"),
                                                    new HeartbeatTable.Settings(4));
                                    FailoverWatchdog watchdog =
                                            FailoverWatchdog.openOrCreate(
                                                    other.resolve("w.watchdog"),
                                                    table,
                                                    4,
                                                    CxcFileOptions.defaults())) {
                                assertThatThrownBy(() -> participants.assign(watchdog, 1))
                                        .isInstanceOf(IllegalArgumentException.class)
                                        .hasMessageContaining("participants' table");
                            }
                        });
    }
}
