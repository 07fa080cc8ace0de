package io.subetha.cxc.wake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one naming of wake sockets, shared by doorbell waiters and pass registry owners: one sequence
 * per process, so two sockets of either kind beside one file never share a name; a bind that cannot
 * be had leaves nothing behind; the last socket's delete takes its directory with it.
 */
class WakeSocketFilesTest {

    static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;

    @Test
    void everyKindOfSocketDrawsFromOneSequence() {
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < WakeSocketFiles.MAX_SEQ; i++) {
            assertThat(seen.add(WakeSocketFiles.nextSequence())).isTrue();
        }
    }

    @Test
    void anAddressNamesItsSocketAndAPidThatDoesNotFitHasNone() {
        long address = WakeSocketFiles.address(PID, 0xABCDEF12L, 7);
        assertThat(WakeSocketFiles.socketOf(dir, address))
                .isEqualTo(dir.resolve(PID + "-abcdef12-7.sock"));
        assertThat(WakeSocketFiles.address(WakeSocketFiles.PID_MASK + 1, 1, 1)).isZero();
        assertThat(WakeSocketFiles.address(0, 1, 1)).isZero();
        assertThat(WakeSocketFiles.socketOf(dir, 0)).isNull();
    }

    @Test
    void aTakenNameIsRefusedAndTheLastDeleteTakesTheDirectory() throws IOException {
        Path wake = WakeSocketFiles.directory(dir.resolve("primitive.cxc"));
        WakeSocketFiles.prepare(wake);
        Path socket =
                Objects.requireNonNull(
                        WakeSocketFiles.socketOf(wake, WakeSocketFiles.address(PID, 1, 1)));
        try (ServerSocketChannel first = WakeSocketFiles.bind(socket)) {
            assertThatThrownBy(() -> WakeSocketFiles.bind(socket)).isInstanceOf(IOException.class);
            assertThat(socket).as("the first one's, untouched").exists();
        }
        WakeSocketFiles.delete(socket);
        assertThat(socket).doesNotExist();
        assertThat(wake).doesNotExist();
        assertThat(Files.exists(dir)).isTrue();
    }
}
