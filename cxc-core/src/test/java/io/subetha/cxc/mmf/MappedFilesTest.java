package io.subetha.cxc.mmf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcFileAccessException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcPidNamespaceException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.ownership.LeaderElectionDescriptor;
import io.subetha.cxc.ownership.SharedLeaderElection;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Random;
import java.util.function.Consumer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The substrate's promises, on leader-election files: atomic create, owner-only permissions, and
 * bad input refused with a clear error while the file stays byte-for-byte as it was.
 */
class MappedFilesTest {

    @TempDir Path dir;

    private Path file() {
        return dir.resolve("leader.cxc");
    }

    /** A valid leader-election file's bytes. */
    private byte[] validBytes() throws Exception {
        Path scratch = dir.resolve("scratch").resolve("valid.cxc");
        try (SharedLeaderElection election = SharedLeaderElection.create(scratch)) {
            election.tryClaimLeadership(42, 3);
        }
        return Files.readAllBytes(scratch);
    }

    /** A valid file with its header changed, the checksum recomputed so only the change shows. */
    private byte[] withHeader(Consumer<ByteBuffer> change) throws Exception {
        byte[] bytes = validBytes();
        ByteBuffer header = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        change.accept(header);
        header.putInt(HeaderDescriptor.CHECKSUM_OFFSET, FileHeader.checksumOf(header));
        return bytes;
    }

    /**
     * Writes {@code bytes}, runs {@code open}, and asserts the failure and that nothing changed.
     */
    private void assertRefused(
            byte[] bytes, Class<? extends CxcException> type, String problem, ThrowingCallable open)
            throws Exception {
        Files.write(file(), bytes);
        FileTime modified = FileTime.fromMillis(1_000_000_000_000L);
        Files.setLastModifiedTime(file(), modified);

        assertThatThrownBy(open)
                .isInstanceOf(type)
                .hasMessageContaining(file().toString())
                .hasMessageContaining(problem);

        assertThat(Files.readAllBytes(file())).as("file bytes after the refusal").isEqualTo(bytes);
        assertThat(Files.getLastModifiedTime(file())).isEqualTo(modified);
    }

    private void assertOpenRefused(byte[] bytes, Class<? extends CxcException> type, String problem)
            throws Exception {
        assertRefused(bytes, type, problem, () -> SharedLeaderElection.open(file()));
        // openOrCreate must refuse the same way and never replace the file
        assertRefused(bytes, type, problem, () -> SharedLeaderElection.openOrCreate(file()));
    }

    @Test
    void emptyFile() throws Exception {
        assertOpenRefused(new byte[0], CxcFormatException.class, "empty (0 bytes)");
    }

    @Test
    void truncatedHeader() throws Exception {
        byte[] valid = validBytes();
        assertOpenRefused(
                java.util.Arrays.copyOf(valid, 40), CxcFormatException.class, "40 bytes, shorter");
    }

    @Test
    void truncatedBody() throws Exception {
        byte[] valid = validBytes();
        assertOpenRefused(
                java.util.Arrays.copyOf(valid, 100),
                CxcFormatException.class,
                "declares a 64-byte body, so the file should be 128 bytes, but it is 100");
    }

    @Test
    void randomBytes() throws Exception {
        byte[] noise = new byte[4096];
        new Random(7).nextBytes(noise);
        assertOpenRefused(noise, CxcFormatException.class, "wrong magic number");
    }

    @Test
    void wrongMagic() throws Exception {
        byte[] bytes = validBytes();
        bytes[0] ^= 0x20;
        assertOpenRefused(bytes, CxcFormatException.class, "not a cxc file");
    }

    @Test
    void anotherPrimitivesKind() throws Exception {
        assertOpenRefused(
                withHeader(
                        h ->
                                h.putInt(
                                        HeaderDescriptor.KIND_OFFSET,
                                        PrimitiveKind.EPOCH_BARRIER.code())),
                CxcFormatException.class,
                "it holds a epoch-barrier, not a leader-election");
    }

    @Test
    void unknownKind() throws Exception {
        assertOpenRefused(
                withHeader(h -> h.putInt(HeaderDescriptor.KIND_OFFSET, 999)),
                CxcFormatException.class,
                "unknown kind 999");
    }

    @Test
    void futureLayoutVersion() throws Exception {
        assertOpenRefused(
                withHeader(h -> h.putInt(HeaderDescriptor.LAYOUT_VERSION_OFFSET, 99)),
                CxcFormatException.class,
                "newer CXC release");
    }

    @Test
    void bodyLengthLargerThanTheFile() throws Exception {
        assertOpenRefused(
                withHeader(h -> h.putLong(HeaderDescriptor.BODY_LENGTH_OFFSET, 1L << 40)),
                CxcFormatException.class,
                "but it is 128 bytes");
    }

    @Test
    void capacityThatThisKindCannotHave() throws Exception {
        assertOpenRefused(
                withHeader(h -> h.putInt(HeaderDescriptor.CAPACITY_OFFSET, 64)),
                CxcFormatException.class,
                "declares capacity 64");
    }

    @Test
    void corruptHeaderChecksum() throws Exception {
        byte[] bytes = validBytes();
        bytes[HeaderDescriptor.CREATED_AT_OFFSET] ^= 1;
        assertOpenRefused(bytes, CxcFormatException.class, "checksum mismatch");
    }

    @Test
    void corruptBodyMagic() throws Exception {
        byte[] bytes = validBytes();
        bytes[HeaderDescriptor.HEADER_LENGTH + LeaderElectionDescriptor.MAGIC_OFFSET] ^= 1;
        assertOpenRefused(bytes, CxcFormatException.class, "body magic");
    }

    @Test
    void anotherPidNamespace() throws Exception {
        assertOpenRefused(
                withHeader(
                        h ->
                                h.putLong(
                                        HeaderDescriptor.PID_NAMESPACE_OFFSET,
                                        PidNamespace.current() + 1)),
                CxcPidNamespaceException.class,
                "PID namespace");
    }

    @Test
    void aFileWhoseCreatorNeverFinishedTimesOutClearly() throws Exception {
        byte[] bytes = validBytes();
        ByteBuffer.wrap(bytes)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(HeaderDescriptor.INITIALISED_OFFSET, 0);
        CxcFileOptions quick =
                CxcFileOptions.defaults().withInitialisationTimeout(Duration.ofMillis(200));
        assertRefused(
                bytes,
                CxcTimeoutException.class,
                "never marked initialised within 200 ms",
                () -> SharedLeaderElection.open(file(), quick));
    }

    @Test
    void aDirectoryInItsPlace() throws Exception {
        Files.createDirectory(file());
        assertThatThrownBy(() -> SharedLeaderElection.open(file()))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining(file().toString())
                .hasMessageContaining("it is a directory");
        assertThatThrownBy(() -> SharedLeaderElection.openOrCreate(file()))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("it is a directory");
        assertThat(Files.isDirectory(file())).isTrue();
    }

    @Test
    void aSymbolicLinkIsNeverFollowed() throws Exception {
        Path target = dir.resolve("real.cxc");
        Files.write(target, validBytes());
        byte[] before = Files.readAllBytes(target);
        Files.createSymbolicLink(file(), target);

        for (ThrowingCallable open :
                new ThrowingCallable[] {
                    () -> SharedLeaderElection.open(file()),
                    () -> SharedLeaderElection.openOrCreate(file()),
                    () -> SharedLeaderElection.create(file())
                }) {
            assertThatThrownBy(open)
                    .isInstanceOf(CxcFileAccessException.class)
                    .hasMessageContaining(file().toString());
        }
        assertThat(Files.readAllBytes(target)).isEqualTo(before);
        assertThat(Files.isSymbolicLink(file())).isTrue();
    }

    @Test
    void aDanglingSymbolicLinkIsNotReplaced() throws Exception {
        Files.createSymbolicLink(file(), dir.resolve("nowhere.cxc"));
        assertThatThrownBy(() -> SharedLeaderElection.openOrCreate(file()))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("symbolic link");
        assertThat(Files.exists(dir.resolve("nowhere.cxc"))).isFalse();
    }

    @Test
    void createRefusesAnExistingFileAndLeavesItAlone() throws Exception {
        byte[] bytes = validBytes();
        Files.write(file(), bytes);
        assertThatThrownBy(() -> SharedLeaderElection.create(file()))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("already exists");
        assertThat(Files.readAllBytes(file())).isEqualTo(bytes);
    }

    @Test
    void openOfAMissingFileOrDirectoryIsReportedAndCreateMakesTheDirectories() throws Exception {
        Path deep = dir.resolve("a").resolve("b").resolve("leader.cxc");
        assertThatThrownBy(() -> SharedLeaderElection.open(deep))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining(deep.getParent() + " does not exist");
        assertThatThrownBy(() -> SharedLeaderElection.open(file()))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("no such file");

        try (SharedLeaderElection created = SharedLeaderElection.create(deep)) {
            assertThat(created.mappedFile().created()).isTrue();
        }
        assertThat(Files.getPosixFilePermissions(dir.resolve("a")))
                .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(deep.getParent()))
                .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    }

    @Test
    void aFileWhereTheDirectoryShouldBeIsReported() throws Exception {
        Files.write(dir.resolve("notadir"), new byte[] {1});
        assertThatThrownBy(
                        () -> SharedLeaderElection.create(dir.resolve("notadir").resolve("x.cxc")))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("not a directory");
    }

    @Test
    void filesAreCreatedOwnerOnlyWhateverTheUmaskUnlessConfigured() throws Exception {
        try (SharedLeaderElection election = SharedLeaderElection.create(file())) {
            assertThat(Files.getPosixFilePermissions(election.file()))
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        }
        Path shared = dir.resolve("group").resolve("leader.cxc");
        CxcFileOptions groupShared =
                CxcFileOptions.defaults()
                        .withFilePermissions("rw-rw----")
                        .withDirectoryPermissions("rwxrwx---");
        try (SharedLeaderElection election = SharedLeaderElection.create(shared, groupShared)) {
            assertThat(Files.getPosixFilePermissions(election.file()))
                    .isEqualTo(PosixFilePermissions.fromString("rw-rw----"));
            assertThat(Files.getPosixFilePermissions(shared.getParent()))
                    .isEqualTo(PosixFilePermissions.fromString("rwxrwx---"));
        }
        assertThatThrownBy(() -> CxcFileOptions.defaults().withFilePermissions("r--------"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owner read and write");
    }

    @Test
    void aNewFileHasAConsistentHeaderAndNoTemporaryFileRemains() throws Exception {
        try (SharedLeaderElection election = SharedLeaderElection.create(file())) {
            FileHeader header = election.mappedFile().header();
            assertThat(header.magic()).isEqualTo(HeaderDescriptor.MAGIC);
            assertThat(header.kindCode()).isEqualTo(PrimitiveKind.LEADER_ELECTION.code());
            assertThat(header.bodyLength()).isEqualTo(LeaderElectionDescriptor.BODY_LENGTH);
            assertThat(header.creatorPid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(header.pidNamespace()).isEqualTo(PidNamespace.current());
            assertThat(header.initialised()).isEqualTo(HeaderDescriptor.INITIALISED);
        }
        assertThat(Files.size(file())).isEqualTo(128);
        assertThat(MappedFiles.readHeader(file()).initialised())
                .isEqualTo(HeaderDescriptor.INITIALISED);
        try (var listing = Files.list(dir)) {
            assertThat(listing.map(p -> p.getFileName().toString())).containsExactly("leader.cxc");
        }
    }
}
