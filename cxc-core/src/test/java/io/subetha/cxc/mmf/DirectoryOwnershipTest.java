package io.subetha.cxc.mmf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.subetha.cxc.CxcUnsafeDirectoryException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whose a cxc directory, its parents, a link on its path and a cxc file may be: a strict check
 * refuses anyone but this user (or root, for parents and links), a lax one lets it pass; and the
 * checks that hold whoever runs them (a directory its owner may not write, a file on the path, a
 * clean strict path). The ownership cases hand a path to another uid, which only root may do: they
 * run where the suite runs as root (this project's CI and dev containers) and are skipped
 * elsewhere.
 */
class DirectoryOwnershipTest {

    static final int STRANGER = 4242;

    @TempDir Path temp;

    private static void assumeRoot() {
        assumeTrue(DirectorySafety.currentUid() == 0, "only root may hand a path to another uid");
    }

    private static void chown(Path path, LinkOption... options) throws Exception {
        Files.setAttribute(path, "unix:uid", STRANGER, options);
    }

    private static boolean relaxable(Throwable e) {
        return ((CxcUnsafeDirectoryException) e).relaxable();
    }

    @Test
    void aCleanPathPassesTheStrictCheck() {
        Path dir = temp.resolve("app");
        assertThat(DirectorySafety.prepare(dir, true)).isEqualTo(dir.toAbsolutePath());
        assertThat(DirectorySafety.prepare(dir, true)).isEqualTo(dir.toAbsolutePath()); // again
    }

    @Test
    void theCurrentUidIsTheOwnerOfWhatThisProcessCreates() throws Exception {
        Path file = Files.createFile(temp.resolve("mine"));
        assertThat(DirectorySafety.currentUid()).isEqualTo(Files.getAttribute(file, "unix:uid"));
    }

    @Test
    void aDirectoryItsOwnerMayNotWriteIsRefusedEvenWhenNotStrict() throws Exception {
        Path dir = Files.createDirectory(temp.resolve("readonly"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("r-x------"));
        try {
            for (boolean strict : new boolean[] {true, false}) {
                assertThatThrownBy(() -> DirectorySafety.prepare(dir, strict))
                        .isInstanceOf(CxcUnsafeDirectoryException.class)
                        .hasMessageContaining("it is not writable (r-x------)")
                        .satisfies(e -> assertThat(relaxable(e)).isFalse());
            }
        } finally {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void aFileOnThePathIsNamedAsSuch() throws Exception {
        Path file = Files.createFile(temp.resolve("plain"));
        assertThatThrownBy(() -> DirectorySafety.prepare(file.resolve("app"), false))
                .isInstanceOf(CxcUnsafeDirectoryException.class)
                .hasMessageContaining(file + " on its path is a file, not a directory");
    }

    @Test
    void aDirectoryOfAnotherUserIsRefusedWhenStrictOnly() throws Exception {
        assumeRoot();
        Path dir = Files.createDirectory(temp.resolve("theirs"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        chown(dir);

        assertThatThrownBy(() -> DirectorySafety.prepare(dir, true))
                .isInstanceOf(CxcUnsafeDirectoryException.class)
                .hasMessageContaining("(uid " + STRANGER + "), not by you (uid 0)")
                .satisfies(e -> assertThat(relaxable(e)).isTrue());
        // Lax: another user's directory is used as long as it can be written.
        assertThat(DirectorySafety.prepare(dir, false)).isEqualTo(dir.toAbsolutePath());
    }

    @Test
    void aParentOfAnotherUserIsRefusedWhenStrictAndRootsOrOursPass() throws Exception {
        assumeRoot();
        Path parent = Files.createDirectory(temp.resolve("their-parent"));
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwx------"));
        Path dir = Files.createDirectory(parent.resolve("app"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        assertThat(DirectorySafety.prepare(dir, true)).isEqualTo(dir); // root's parents pass
        chown(parent);

        assertThatThrownBy(() -> DirectorySafety.prepare(dir, true))
                .isInstanceOf(CxcUnsafeDirectoryException.class)
                .hasMessageContaining(parent + " on its path is owned by uid " + STRANGER)
                .hasMessageContaining("neither you (uid 0) nor root")
                .satisfies(e -> assertThat(relaxable(e)).isTrue());
        assertThat(DirectorySafety.prepare(dir, false)).isEqualTo(dir);
    }

    @Test
    void aSymbolicLinkOfAnotherUserOnThePathIsRefusedWhenStrict() throws Exception {
        assumeRoot();
        Path target = Files.createDirectory(temp.resolve("target"));
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
        Path link = Files.createSymbolicLink(temp.resolve("link"), target);
        assertThat(DirectorySafety.prepare(link, true)).isEqualTo(link); // root's link passes
        chown(link, LinkOption.NOFOLLOW_LINKS);

        assertThatThrownBy(() -> DirectorySafety.prepare(link, true))
                .isInstanceOf(CxcUnsafeDirectoryException.class)
                .hasMessageContaining("goes through the symbolic link " + link)
                .hasMessageContaining("owned by uid " + STRANGER)
                .satisfies(e -> assertThat(relaxable(e)).isTrue());
        assertThat(DirectorySafety.prepare(link, false)).isEqualTo(link);
    }

    @Test
    void aCxcFileOfAnotherUserIsRefusedWhenStrict() throws Exception {
        assumeRoot();
        Path file = Files.createFile(temp.resolve("leader.cxc"));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        DirectorySafety.checkFile(file, true); // ours, owner-only: passes
        chown(file, LinkOption.NOFOLLOW_LINKS);

        assertThatThrownBy(() -> DirectorySafety.checkFile(file, true))
                .isInstanceOf(CxcUnsafeDirectoryException.class)
                .hasMessageContaining("is owned by uid " + STRANGER + ", not by you (uid 0)")
                .satisfies(e -> assertThat(relaxable(e)).isTrue());
        DirectorySafety.checkFile(file, false);
    }
}
