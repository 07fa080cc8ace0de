package io.subetha.cxc.boot.autoconfigure;

import static org.awaitility.Awaitility.await;

import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The file a test application's handler writes its PID to before it hangs on the test's marked work
 * item, written whole by a rename so a reader never sees half of it.
 */
final class HangFile {

    private HangFile() {}

    /** Writes this process's PID to {@code file}, then hangs until the process is killed. */
    static void hangHere(Path file) throws IOException {
        Path partial = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(partial, Long.toString(Pids.current()));
        Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
        while (true) {
            LockSupport.parkNanos(1_000_000_000L); // until SIGKILLed
        }
    }

    /** The app among {@code apps} whose handler hangs, once one has written {@code file}. */
    static ChildJvm awaitHolder(Path file, List<ChildJvm> apps) {
        String pid =
                await().pollInterval(Duration.ofMillis(10))
                        .atMost(Duration.ofSeconds(60))
                        .until(
                                () -> Files.exists(file) ? Files.readString(file) : "",
                                s -> !s.isEmpty());
        return apps.stream()
                .filter(app -> app.pid() == Long.parseLong(pid))
                .findFirst()
                .orElseThrow();
    }
}
