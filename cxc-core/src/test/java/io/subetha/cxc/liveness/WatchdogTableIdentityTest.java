package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A watchdog opened as the watchdog of a table it does not watch: a table of the same capacity is
 * still another table, refused as a format error naming both, and the watchdog file is left as it
 * was.
 */
class WatchdogTableIdentityTest {

    @TempDir Path dir;

    @Test
    void anotherTableOfTheSameCapacityIsRefusedNamingTheTableItWatches() throws Exception {
        Path watched = dir.resolve("heartbeat.cxc");
        Path other = dir.resolve("other-heartbeat.cxc");
        Path watchdogPath = dir.resolve("watchdog.cxc");
        HeartbeatTable.TYPE.create(watched, new HeartbeatTable.Settings(3)).close();
        HeartbeatTable.TYPE.create(other, new HeartbeatTable.Settings(3)).close();
        FailoverWatchdog.TYPE
                .create(
                        watchdogPath,
                        FailoverWatchdog.Settings.watching(
                                watchdogPath, watched, FailoverWatchdog.DEFAULT_WORK_PER_SLOT))
                .close();
        byte[] before = Files.readAllBytes(watchdogPath);

        assertThatThrownBy(
                        () ->
                                FailoverWatchdog.open(
                                        watchdogPath,
                                        FailoverWatchdog.Settings.watching(
                                                watchdogPath,
                                                other,
                                                FailoverWatchdog.DEFAULT_WORK_PER_SLOT)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("as a watchdog of " + other)
                .hasMessageContaining("it watches " + watched.toAbsolutePath().normalize())
                .hasMessageContaining("left untouched");
        assertThat(Files.readAllBytes(watchdogPath)).isEqualTo(before);
    }
}
