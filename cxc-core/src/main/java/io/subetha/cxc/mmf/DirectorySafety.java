package io.subetha.cxc.mmf;

import io.subetha.cxc.CxcUnsafeDirectoryException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * Lets no one else into a cxc directory, as ssh's {@code StrictModes} does for {@code ~/.ssh}:
 * whoever can write the directory or swap a symbolic link on its path can replace the election file
 * and so elect whom they like. The Spring Boot starter runs these checks on {@code cxc.directory};
 * a plain-Java user calls {@link #prepare} on the directory before opening files in it, and {@link
 * #checkFile} on each file:
 *
 * <pre>{@code
 * Path dir = DirectorySafety.prepare(Path.of("/dev/shm/myapp"), true);
 * DirectorySafety.checkFile(dir.resolve("leader.cxc"), true);
 * SharedLeaderElection election = SharedLeaderElection.openOrCreate(dir.resolve("leader.cxc"));
 * }</pre>
 *
 * <p>Checks are made on owner and mode bits, not by trying an access, so they hold for root too
 * (whom permission bits do not stop). A refusal is a {@link CxcUnsafeDirectoryException} that says
 * what is wrong and what to do; one that {@link CxcUnsafeDirectoryException#relaxable() strict =
 * false} would accept says so.
 */
public final class DirectorySafety {

    private static final Set<PosixFilePermission> WRITE_BY_OTHERS =
            Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
    private static final int GROUP_OR_OTHERS_WRITE = 0020 | 0002;
    private static final int STICKY = 01000;

    private DirectorySafety() {}

    /**
     * Creates the directory if missing (each new level {@code rwx------}) and checks it: no
     * symbolic link on its path owned by anyone but the current user or root, a directory (not a
     * file), writable by its owner, and, when strict, owned by the current user and not writable by
     * group or others, below parents owned by the current user or root that group and others may
     * not write unless they are sticky (as {@code /tmp} and {@code /dev/shm} are).
     *
     * @return the directory, absolute
     */
    public static Path prepare(Path directory, boolean strict) {
        Path absolute = directory.toAbsolutePath().normalize();
        int uid = currentUid();
        Path walked = absolute.getRoot();
        for (Path name : absolute) {
            walked = walked.resolve(name);
            if (Files.isSymbolicLink(walked)) {
                int owner = uid(walked, LinkOption.NOFOLLOW_LINKS);
                if (strict && owner != uid && owner != 0) {
                    throw unsafe(
                            directory,
                            "its path goes through the symbolic link "
                                    + walked
                                    + ", owned by uid "
                                    + owner
                                    + ", neither you (uid "
                                    + uid
                                    + ") nor root: its owner can point it anywhere",
                            "Use a path without that link (e.g. its target, if you trust it).",
                            true);
                }
            } else if (!Files.exists(walked)) {
                createOwnerOnly(walked, directory);
            }
            if (Files.exists(walked) && !Files.isDirectory(walked)) {
                throw unsafe(
                        directory,
                        walked.equals(absolute)
                                ? "it is a file, not a directory"
                                : walked + " on its path is a file, not a directory",
                        "Point cxc.directory at a directory, or remove the file.");
            }
            if (strict && !walked.equals(absolute)) {
                checkAncestor(walked, directory, uid);
            }
        }
        if (strict) {
            checkRealAncestors(absolute, directory, uid);
        }
        PosixFileAttributes attributes = attributes(absolute, directory);
        int owner = uid(absolute);
        Set<PosixFilePermission> mode = attributes.permissions();
        if (strict && owner != uid) {
            throw unsafe(
                    directory,
                    "it is owned by "
                            + attributes.owner().getName()
                            + " (uid "
                            + owner
                            + "), not by you (uid "
                            + uid
                            + "): its owner can replace the election file",
                    "Use a directory of your own (e.g. remove it and let cxc create it), or"
                            + " chown it to yourself.",
                    true);
        }
        if (strict && !Collections.disjoint(mode, WRITE_BY_OTHERS)) {
            throw unsafe(
                    directory,
                    "group or others may write it ("
                            + PosixFilePermissions.toString(mode)
                            + "), and so replace the election file",
                    "Run chmod go-w " + absolute + " (cxc creates it rwx------).",
                    true);
        }
        boolean ownerCanWrite =
                owner == uid ? mode.contains(PosixFilePermission.OWNER_WRITE) : true;
        if (!ownerCanWrite || !Files.isWritable(absolute)) {
            throw unsafe(
                    directory,
                    "it is not writable ("
                            + PosixFilePermissions.toString(mode)
                            + "): cxc creates its files there",
                    "Run chmod u+w " + absolute + ", or choose another directory.");
        }
        return absolute;
    }

    /**
     * A directory above the cxc directory: whoever may rename entries in it may swap the cxc
     * directory for one of their own. So, as ssh's {@code StrictModes}: owned by you or root, and
     * not writable by group or others unless sticky ({@code /tmp}, {@code /dev/shm}: there only an
     * entry's owner may rename it).
     */
    private static void checkAncestor(Path ancestor, Path configured, int uid) {
        int owner = uid(ancestor);
        if (owner != uid && owner != 0) {
            throw unsafe(
                    configured,
                    ancestor
                            + " on its path is owned by uid "
                            + owner
                            + ", neither you (uid "
                            + uid
                            + ") nor root: its owner can replace everything below it",
                    "Use a directory whose parents are yours or root's.",
                    true);
        }
        int mode = mode(ancestor, configured);
        if ((mode & GROUP_OR_OTHERS_WRITE) != 0 && (mode & STICKY) == 0) {
            throw unsafe(
                    configured,
                    ancestor
                            + " on its path may be written by group or others and is not sticky"
                            + " (mode "
                            + Integer.toOctalString(mode & 07777)
                            + "): they can rename the cxc directory away and put their own in its"
                            + " place",
                    "Run chmod go-w "
                            + ancestor
                            + " (or chmod +t, as /tmp), or choose another directory.",
                    true);
        }
    }

    /**
     * Through a symbolic link, the directory's real parents are not on the path as written ({@code
     * /tmp/link/app} with {@code /tmp/link -> /srv/shared/dir}): whoever may rename entries in
     * {@code /srv/shared} may swap the directory all the same. So every ancestor of the real path
     * is checked too.
     */
    private static void checkRealAncestors(Path absolute, Path configured, int uid) {
        Path real;
        try {
            real = absolute.toRealPath();
        } catch (IOException e) {
            throw unsafe(
                    configured,
                    "cannot resolve its real path: " + e,
                    "Use a directory you can resolve, without dangling symbolic links.");
        }
        if (real.equals(absolute)) {
            return;
        }
        Path walked = real.getRoot();
        for (Path name : real) {
            walked = walked.resolve(name);
            if (!walked.equals(real)) {
                try {
                    checkAncestor(walked, configured, uid);
                } catch (CxcUnsafeDirectoryException e) {
                    throw unsafe(
                            configured,
                            "through a symbolic link its real path is "
                                    + real
                                    + ", and "
                                    + e.reason(),
                            e.action(),
                            true);
                }
            }
        }
    }

    private static int mode(Path path, Path configured) {
        try {
            return (Integer) Files.getAttribute(path, "unix:mode");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            throw unsafe(
                    configured,
                    "cannot read the mode of " + path + ": " + e,
                    "Use a directory on a POSIX file system, such as /dev/shm or /tmp.");
        }
    }

    /**
     * Checks an existing cxc file as {@link #prepare} checks the directory; a missing file passes
     * (cxc creates it owner-only).
     */
    public static void checkFile(Path file, boolean strict) {
        if (!strict || !Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        int uid = currentUid();
        int owner = uid(file, LinkOption.NOFOLLOW_LINKS);
        PosixFileAttributes attributes = attributes(file, file, LinkOption.NOFOLLOW_LINKS);
        if (owner != uid) {
            throw unsafe(
                    file.getParent(),
                    "its file "
                            + file.getFileName()
                            + " is owned by uid "
                            + owner
                            + ", not by you (uid "
                            + uid
                            + ")",
                    "Remove " + file + " when no process uses it, or chown it.",
                    true);
        }
        if (!Collections.disjoint(attributes.permissions(), WRITE_BY_OTHERS)) {
            throw unsafe(
                    file.getParent(),
                    "its file "
                            + file.getFileName()
                            + " is writable by group or others ("
                            + PosixFilePermissions.toString(attributes.permissions())
                            + ")",
                    "Run chmod go-w " + file + ".",
                    true);
        }
    }

    private static void createOwnerOnly(Path path, Path configured) {
        try {
            Files.createDirectory(
                    path,
                    PosixFilePermissions.asFileAttribute(CxcFileOptions.OWNER_ONLY_DIRECTORY));
            Files.setPosixFilePermissions(
                    path, CxcFileOptions.OWNER_ONLY_DIRECTORY); // whatever the umask
        } catch (FileAlreadyExistsException raced) {
            // Another process made it first; the checks that follow apply to it as to any other.
        } catch (IOException e) {
            throw unsafe(
                    configured,
                    "cannot create " + path + ": " + e,
                    "Create it yourself (mode 700), or choose a directory you can write.");
        }
    }

    /** The attributes of {@code path} itself, or of its target if it is a checked symlink. */
    private static PosixFileAttributes attributes(
            Path path, Object configured, LinkOption... options) {
        try {
            return Files.getFileAttributeView(path, PosixFileAttributeView.class, options)
                    .readAttributes();
        } catch (IOException | UnsupportedOperationException e) {
            throw unsafe(
                    configured,
                    "cannot read the owner and permissions of " + path + ": " + e,
                    "Use a directory on a POSIX file system, such as /dev/shm or /tmp.");
        }
    }

    private static int uid(Path path, LinkOption... options) {
        try {
            return (Integer) Files.getAttribute(path, "unix:uid", options);
        } catch (IOException e) {
            throw unsafe(
                    path,
                    "cannot read the owner of " + path + ": " + e,
                    "Check that the directory exists and is readable.");
        }
    }

    /** The effective user id, from {@code /proc/self/status}; else the owner of a new file. */
    public static int currentUid() {
        try {
            List<String> status = Files.readAllLines(Path.of("/proc/self/status"));
            for (String line : status) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException notLinux) {
            // fall through
        }
        try {
            Path probe = Files.createTempFile("cxc-uid", ".probe");
            try {
                return (Integer) Files.getAttribute(probe, "unix:uid");
            } finally {
                Files.deleteIfExists(probe);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot tell this process's user id", e);
        }
    }

    private static CxcUnsafeDirectoryException unsafe(
            Object configured, String reason, String action) {
        return new CxcUnsafeDirectoryException(configured, reason, action, false);
    }

    private static CxcUnsafeDirectoryException unsafe(
            Object configured, String reason, String action, boolean relaxable) {
        return new CxcUnsafeDirectoryException(configured, reason, action, relaxable);
    }
}
