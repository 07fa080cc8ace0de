package io.subetha.cxc.mmf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcUnsafeDirectoryException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The directory checks plain-Java users get, the same the starter runs on cxc.directory. */
class DirectorySafetyTest {

    @TempDir Path temp;

    @Test
    void createsMissingLevelsOwnerOnlyAndReturnsTheAbsoluteDirectory() throws Exception {
        Path dir = temp.resolve("a").resolve("b");
        assertThat(DirectorySafety.prepare(dir, true)).isEqualTo(dir.toAbsolutePath());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
                .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.getParent())))
                .isEqualTo("rwx------");
    }

    @Test
    void aDirectoryOthersMayWriteIsRefusedUnlessNotStrict() throws Exception {
        Path dir = Files.createDirectory(temp.resolve("shared"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> DirectorySafety.prepare(dir, true))
                .isInstanceOf(CxcUnsafeDirectoryException.class)
                .hasMessageContaining("group or others may write it")
                .hasMessageContaining("chmod go-w")
                .satisfies(e -> assertThat(((CxcUnsafeDirectoryException) e).relaxable()).isTrue());
        assertThat(DirectorySafety.prepare(dir, false)).isEqualTo(dir.toAbsolutePath());
    }

    @Test
    void aParentOthersMayWriteIsRefusedUnlessItIsSticky() throws Exception {
        Path parent = Files.createDirectory(temp.resolve("open"));
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> DirectorySafety.prepare(parent.resolve("cxc"), true))
                .isInstanceOf(CxcUnsafeDirectoryException.class)
                .hasMessageContaining("is not sticky");
        Files.setAttribute(parent, "unix:mode", 01777);
        assertThat(DirectorySafety.prepare(parent.resolve("cxc"), true)).exists();
    }

    @Test
    void aFileWhereTheDirectoryShouldBeIsRefusedEvenWhenNotStrict() throws Exception {
        Path file = Files.createFile(temp.resolve("plain"));
        assertThatThrownBy(() -> DirectorySafety.prepare(file, false))
                .isInstanceOf(CxcUnsafeDirectoryException.class)
                .hasMessageContaining("it is a file, not a directory")
                .satisfies(
                        e -> assertThat(((CxcUnsafeDirectoryException) e).relaxable()).isFalse());
    }

    @Test
    void aCxcFileOthersMayWriteIsRefused() throws Exception {
        Path file = Files.createFile(temp.resolve("leader.cxc"));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThatThrownBy(() -> DirectorySafety.checkFile(file, true))
                .isInstanceOf(CxcUnsafeDirectoryException.class)
                .hasMessageContaining("writable by group or others");
        DirectorySafety.checkFile(file, false);
        DirectorySafety.checkFile(temp.resolve("absent.cxc"), true);
    }

    @Test
    void theRealParentsBehindASymbolicLinkAreCheckedToo() throws Exception {
        // /tmp/link/app with /tmp/link -> shared/dir, where shared is world-writable, not sticky:
        // whoever may write shared can rename dir away and put their own in its place.
        Path shared = Files.createDirectory(temp.resolve("shared"));
        Path target = Files.createDirectory(shared.resolve("dir"));
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path link = Files.createSymbolicLink(temp.resolve("link"), target);

        assertThatThrownBy(() -> DirectorySafety.prepare(link.resolve("app"), true))
                .isInstanceOf(CxcUnsafeDirectoryException.class)
                .hasMessageContaining("through a symbolic link its real path is")
                .hasMessageContaining(shared + " on its path may be written by group or others")
                .satisfies(e -> assertThat(((CxcUnsafeDirectoryException) e).relaxable()).isTrue());
        assertThat(DirectorySafety.prepare(link.resolve("app"), false)).exists();

        Files.setAttribute(shared, "unix:mode", 01777); // sticky, as /tmp: safe again
        assertThat(DirectorySafety.prepare(link.resolve("app"), true)).exists();
    }
}
