package io.subetha.cxc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcFileAccessException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.election.LeaderElectionDescriptor;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.primitive.PrimitiveKinds;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The substrate's promises, on leader-election files: atomic create that never replaces a file,
 * owner-only permissions, directories made or reported, links never followed. Bad file contents are
 * the bad-input catalogue's ({@code io.subetha.cxc.badinput}).
 */
class MappedFilesTest {

    @TempDir Path dir;

    private Path file() {
        return dir.resolve("leader.cxc");
    }

    /** A valid leader-election file's bytes. */
    private byte[] validBytes() throws Exception {
        Path scratch = dir.resolve("scratch").resolve("valid.cxc");
        try (SharedLeaderElection election =
                SharedLeaderElection.TYPE.create(scratch, SharedLeaderElection.Settings.DEFAULTS)) {
            election.tryClaimLeadership(42, 3);
        }
        return Files.readAllBytes(scratch);
    }

    @Test
    void aFileThatShrinksBetweenValidationAndMappingIsRefusedNeverGrownBack() throws Exception {
        byte[] bytes = validBytes();
        Files.write(file(), bytes);
        long shrunk = HeaderDescriptor.HEADER_LENGTH; // the body is cut off
        try (Interleaving.Installed truncator =
                Interleaving.install(
                        point -> {
                            if (point == Interleaving.Point.OPEN_VALIDATED) {
                                truncate(file(), shrunk);
                            }
                        })) {
            assertThatThrownBy(() -> SharedLeaderElection.open(file()))
                    .isInstanceOf(CxcException.class)
                    .hasMessageContaining("changed size while it was being opened")
                    .hasMessageContaining("validated at " + bytes.length + " bytes, now " + shrunk);
        }
        assertThat(Files.size(file())).isEqualTo(shrunk);
    }

    private static void truncate(Path path, long size) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * On a file system without hard links (vfat, many FUSE and network mounts) Linux answers
     * link(2) with EPERM, an ordinary I/O error. With no such file system at hand, the test makes
     * link(2) answer EPERM for real: it marks the new file immutable ({@code chattr +i}) just
     * before the creator links it.
     */
    @Test
    void aFileSystemThatRefusesHardLinksIsNamedInTheError() throws Exception {
        Files.createDirectories(dir);
        assumeChattrImmutableWorks();
        List<Path> marked = new ArrayList<>();
        try (Interleaving.Installed immutable =
                Interleaving.install(
                        point -> {
                            if (point == Interleaving.Point.NEW_FILE_WRITTEN) {
                                try (var listing = Files.list(dir)) {
                                    listing.filter(
                                                    p ->
                                                            p.getFileName()
                                                                    .toString()
                                                                    .contains(".creating-"))
                                            .forEach(
                                                    p -> {
                                                        chattr("+i", p);
                                                        marked.add(p);
                                                    });
                                } catch (java.io.IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            }
                        })) {
            assertThatThrownBy(
                            () ->
                                    SharedLeaderElection.TYPE.create(
                                            file(), SharedLeaderElection.Settings.DEFAULTS))
                    .isInstanceOf(CxcFileAccessException.class)
                    .hasMessageContaining(file().toString())
                    .hasMessageContaining("Operation not permitted")
                    .hasMessageContaining("hard link");
        } finally {
            marked.forEach(p -> chattr("-i", p));
        }
        assertThat(marked).hasSize(1);
        assertThat(file()).doesNotExist();
    }

    private void assumeChattrImmutableWorks() throws Exception {
        Path probe = Files.createFile(dir.resolve("chattr-probe"));
        Process chattr;
        try {
            chattr =
                    new ProcessBuilder("chattr", "+i", probe.toString())
                            .redirectErrorStream(true)
                            .start();
        } catch (java.io.IOException e) {
            Assumptions.abort("chattr is not installed: " + e);
            return;
        }
        String output = new String(chattr.getInputStream().readAllBytes()).trim();
        boolean immutable = chattr.waitFor() == 0;
        if (immutable) {
            chattr("-i", probe);
        }
        Files.delete(probe);
        Assumptions.assumeTrue(
                immutable,
                "cannot mark a file immutable in "
                        + dir
                        + " (needs CAP_LINUX_IMMUTABLE and a file system with the flag): "
                        + output);
    }

    private static void chattr(String flag, Path path) {
        try {
            Process chattr =
                    new ProcessBuilder("chattr", flag, path.toString())
                            .redirectErrorStream(true)
                            .start();
            String output = new String(chattr.getInputStream().readAllBytes()).trim();
            if (chattr.waitFor() != 0) {
                throw new IllegalStateException("chattr " + flag + " " + path + ": " + output);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anotherKindsFileIsNamedAsThatKindEvenWhenItsLayoutVersionDiffers() throws Exception {
        // A fenced ledger is at layout version 1, an election at 2: the kind decides the message.
        FencedLedger.TYPE.create(file(), FencedLedger.Settings.NONE).close();
        byte[] before = Files.readAllBytes(file());
        assertThatThrownBy(() -> SharedLeaderElection.open(file()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("it holds a fenced-ledger, not a leader-election")
                .hasMessageNotContaining("older CXC release");
        assertThat(Files.readAllBytes(file())).isEqualTo(before);
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
                    () ->
                            SharedLeaderElection.TYPE.create(
                                    file(), SharedLeaderElection.Settings.DEFAULTS)
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
        assertThatThrownBy(
                        () ->
                                SharedLeaderElection.TYPE.create(
                                        file(), SharedLeaderElection.Settings.DEFAULTS))
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

        try (SharedLeaderElection created =
                SharedLeaderElection.TYPE.create(deep, SharedLeaderElection.Settings.DEFAULTS)) {
            assertThat(created.createdFile()).isTrue();
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
                        () ->
                                SharedLeaderElection.TYPE.create(
                                        dir.resolve("notadir").resolve("x.cxc"),
                                        SharedLeaderElection.Settings.DEFAULTS))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("not a directory");
    }

    @Test
    void filesAreCreatedOwnerOnlyWhateverTheUmaskUnlessConfigured() throws Exception {
        try (SharedLeaderElection election =
                SharedLeaderElection.TYPE.create(file(), SharedLeaderElection.Settings.DEFAULTS)) {
            assertThat(Files.getPosixFilePermissions(election.file()))
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        }
        Path shared = dir.resolve("group").resolve("leader.cxc");
        CxcFileOptions groupShared =
                CxcFileOptions.defaults()
                        .withFilePermissions("rw-rw----")
                        .withDirectoryPermissions("rwxrwx---");
        try (SharedLeaderElection election =
                SharedLeaderElection.TYPE.create(
                        shared, SharedLeaderElection.Settings.DEFAULTS, groupShared)) {
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
        try (SharedLeaderElection election =
                SharedLeaderElection.TYPE.create(file(), SharedLeaderElection.Settings.DEFAULTS)) {
            FileHeader header = MappedFiles.readHeader(file());
            assertThat(header.magic()).isEqualTo(HeaderDescriptor.MAGIC);
            assertThat(header.kindCode()).isEqualTo(PrimitiveKinds.LEADER_ELECTION.code());
            assertThat(header.bodyLength()).isEqualTo(LeaderElectionDescriptor.BODY_LENGTH);
            assertThat(header.creatorPid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(header.pidNamespace()).isEqualTo(PidNamespace.current());
            assertThat(header.initialised()).isEqualTo(HeaderDescriptor.INITIALISED);
        }
        assertThat(Files.size(file()))
                .isEqualTo(HeaderDescriptor.HEADER_LENGTH + LeaderElectionDescriptor.BODY_LENGTH);
        assertThat(MappedFiles.readHeader(file()).initialised())
                .isEqualTo(HeaderDescriptor.INITIALISED);
        try (var listing = Files.list(dir)) {
            assertThat(listing.map(p -> p.getFileName().toString())).containsExactly("leader.cxc");
        }
    }
}
