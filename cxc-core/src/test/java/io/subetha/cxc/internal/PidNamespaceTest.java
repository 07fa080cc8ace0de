package io.subetha.cxc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PidNamespaceTest {

    @TempDir Path dir;

    @Test
    void readsTheInodeFromTheNamespaceLink() throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("pid"), Path.of("pid:[4026531836]"));
        assertThat(PidNamespace.read(link)).isEqualTo(4026531836L);
    }

    @Test
    void unreadableOrOddLinksAreUnknown() throws Exception {
        assertThat(PidNamespace.read(dir.resolve("missing"))).isEqualTo(PidNamespace.UNKNOWN);
        Path odd = Files.createSymbolicLink(dir.resolve("odd"), Path.of("pid:4026531836"));
        assertThat(PidNamespace.read(odd)).isEqualTo(PidNamespace.UNKNOWN);
    }

    @Test
    void thisProcessHasAKnownNamespaceOnLinux() {
        if (Files.exists(Path.of("/proc/self/ns/pid"))) {
            assertThat(PidNamespace.current()).isPositive();
        } else {
            assertThat(PidNamespace.current()).isEqualTo(PidNamespace.UNKNOWN);
        }
    }
}
