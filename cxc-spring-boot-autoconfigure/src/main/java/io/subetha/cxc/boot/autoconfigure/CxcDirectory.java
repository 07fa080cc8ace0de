package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.CxcUnsafeDirectoryException;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.DirectorySafety;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.Set;
import java.util.regex.Pattern;
import org.springframework.core.env.Environment;

/**
 * Resolves the cxc directory and lets no one else in, as ssh's {@code StrictModes} does for {@code
 * ~/.ssh}: whoever can write the directory or swap a symbolic link on its path can replace the
 * election file and so elect whom they like.
 *
 * <p>Checks are made on owner and mode bits, not by trying an access, so they hold for root too
 * (whom permission bits do not stop).
 */
final class CxcDirectory {

    static final String DIRECTORY = "cxc.directory";
    static final String FILE_PERMISSIONS = "cxc.file-permissions";

    private static final Set<PosixFilePermission> WRITE_BY_OTHERS =
            Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
    private static final int GROUP_OR_OTHERS_WRITE = 0020 | 0002;
    private static final int STICKY = 01000;
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]*");
    private static final String OPT_OUT =
            " To accept it knowingly, set cxc.strict-permissions=false.";

    private CxcDirectory() {}

    /**
     * {@code cxc.directory}, or the per-user, per-application default {@code
     * /dev/shm/cxc-<uid>/<application>}. Per user, as tmux's {@code /tmp/tmux-<uid>}: a parent
     * shared by all users would have to be world-writable, and the first user to create it
     * owner-only would lock every other user out.
     */
    static Path resolve(CxcProperties properties, Environment environment) {
        Path configured = properties.getDirectory();
        if (configured != null) {
            return configured.toAbsolutePath().normalize();
        }
        String application =
                environment.getProperty("spring.application.name", "application").trim();
        String folder = application.isEmpty() ? "application" : application;
        folder = folder.replaceAll("[^A-Za-z0-9._-]", "-");
        if (folder.startsWith(".")) {
            folder = "-" + folder.substring(1);
        }
        Path shm = Path.of("/dev/shm");
        Path base =
                Files.isDirectory(shm)
                        ? shm
                        : Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        return base.resolve("cxc-" + currentUid()).resolve(folder);
    }

    /**
     * Refuses a name that is not a plain file name: the base name of a cxc file (and, for barriers
     * and watchdogs, a bean name) must not climb out of the directory or hide itself.
     *
     * @param property the property, as {@code application.properties} spells it
     * @param action what to do instead
     */
    static void requireFileName(String property, String name, String action) {
        if (!isPlainFileName(name)) {
            throw new InvalidCxcPropertyException(
                    property,
                    name,
                    "it must be a plain file name: letters, digits, '.', '_' or '-', not starting"
                            + " with '.'",
                    action);
        }
    }

    /**
     * Letters, digits, '.', '_' or '-', not starting with '.': a name that stays in its directory.
     */
    static boolean isPlainFileName(String name) {
        return FILE_NAME.matcher(name).matches();
    }

    /** The options of every file cxc creates: {@code cxc.file-permissions}, owner-only levels. */
    static CxcFileOptions fileOptions(CxcProperties properties) {
        return new CxcFileOptions(
                filePermissions(properties),
                CxcFileOptions.OWNER_ONLY_DIRECTORY,
                CxcFileOptions.DEFAULT_INITIALISATION_TIMEOUT);
    }

    /**
     * Prepares the directory ({@link #prepare}) and checks the file {@code fileName} in it ({@link
     * #checkFile}), so every cxc file gets the election file's checks.
     *
     * @return the file's path, absolute
     */
    static Path file(CxcProperties properties, Environment environment, String fileName) {
        boolean strict = properties.isStrictPermissions();
        Path file = prepare(resolve(properties, environment), strict).resolve(fileName);
        checkFile(file, strict);
        return file;
    }

    /** Parses and checks {@code cxc.file-permissions}. */
    static Set<PosixFilePermission> filePermissions(CxcProperties properties) {
        String text = properties.getFilePermissions();
        Set<PosixFilePermission> permissions;
        try {
            permissions = PosixFilePermissions.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidCxcPropertyException(
                    FILE_PERMISSIONS,
                    text,
                    "not a permission string of nine characters such as rw-------",
                    "Set cxc.file-permissions as ls -l shows them, e.g. rw------- (the default).");
        }
        if (!permissions.contains(PosixFilePermission.OWNER_READ)
                || !permissions.contains(PosixFilePermission.OWNER_WRITE)) {
            throw new InvalidCxcPropertyException(
                    FILE_PERMISSIONS,
                    text,
                    "the owner must be able to read and write the file",
                    "Start the permissions with rw, e.g. rw------- (the default).");
        }
        if (properties.isStrictPermissions()
                && !Collections.disjoint(permissions, WRITE_BY_OTHERS)) {
            throw new InvalidCxcPropertyException(
                    FILE_PERMISSIONS,
                    text,
                    "it lets group or others write the election file, and so choose the leader",
                    "Use rw------- or rw-r-----." + OPT_OUT);
        }
        return permissions;
    }

    /** {@link DirectorySafety#prepare}, its refusal reported against {@code cxc.directory}. */
    static Path prepare(Path directory, boolean strict) {
        try {
            return DirectorySafety.prepare(directory, strict);
        } catch (CxcUnsafeDirectoryException e) {
            throw asProperty(e);
        }
    }

    /** {@link DirectorySafety#checkFile}, its refusal reported against {@code cxc.directory}. */
    static void checkFile(Path file, boolean strict) {
        try {
            DirectorySafety.checkFile(file, strict);
        } catch (CxcUnsafeDirectoryException e) {
            throw asProperty(e);
        }
    }

    static int currentUid() {
        return DirectorySafety.currentUid();
    }

    private static InvalidCxcPropertyException asProperty(CxcUnsafeDirectoryException e) {
        return new InvalidCxcPropertyException(
                DIRECTORY, e.configured(), e.reason(), e.action() + (e.relaxable() ? OPT_OUT : ""));
    }
}
