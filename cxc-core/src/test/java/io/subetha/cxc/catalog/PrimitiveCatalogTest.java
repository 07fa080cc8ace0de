package io.subetha.cxc.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.primitive.PrimitiveKinds;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a tool outside the core reads of a file through the catalog, without opening it. */
class PrimitiveCatalogTest {

    @TempDir Path dir;

    @Test
    void aFilesHeaderIsReadWithoutOpeningIt() {
        Path path = dir.resolve("leader.cxc");
        try (SharedLeaderElection ignored =
                SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS)) {
            FileHeader header = PrimitiveCatalog.readHeader(path);

            assertThat(header.magic()).isEqualTo(HeaderDescriptor.MAGIC);
            assertThat(header.kindCode()).isEqualTo(PrimitiveKinds.LEADER_ELECTION.code());
            assertThat(header.creatorPid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(header.initialised()).isEqualTo(HeaderDescriptor.INITIALISED);
            assertThat(PrimitiveCatalog.ofCode(header.kindCode()))
                    .contains(SharedLeaderElection.TYPE);
        }
    }

    @Test
    void aFileShorterThanAHeaderIsRefusedNamingIt() throws Exception {
        Path path = Files.write(dir.resolve("short.cxc"), new byte[] {1, 2, 3});

        assertThatThrownBy(() -> PrimitiveCatalog.readHeader(path))
                .isInstanceOf(CxcException.class)
                .hasMessageContaining(path.toString());
        assertThat(Files.readAllBytes(path)).containsExactly(1, 2, 3);
    }
}
