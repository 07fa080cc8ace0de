package io.subetha.cxc.mmf;

import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * How cxc files and the directories made for them are created, and how long an opener waits for a
 * file that exists but is not yet initialised.
 *
 * @param filePermissions permissions of a new file, whatever the umask; default {@code rw-------}
 * @param directoryPermissions permissions of each directory {@code create} makes; default {@code
 *     rwx------}
 * @param initialisationTimeout how long {@code open} waits for the initialised marker of a file
 *     another process is still creating before it reports the file as never initialised
 */
public record CxcFileOptions(
        Set<PosixFilePermission> filePermissions,
        Set<PosixFilePermission> directoryPermissions,
        Duration initialisationTimeout) {

    public static final Set<PosixFilePermission> OWNER_ONLY_FILE =
            PosixFilePermissions.fromString("rw-------");
    public static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY =
            PosixFilePermissions.fromString("rwx------");
    public static final Duration DEFAULT_INITIALISATION_TIMEOUT = Duration.ofSeconds(2);

    private static final CxcFileOptions DEFAULTS =
            new CxcFileOptions(
                    OWNER_ONLY_FILE, OWNER_ONLY_DIRECTORY, DEFAULT_INITIALISATION_TIMEOUT);

    public CxcFileOptions {
        filePermissions = Set.copyOf(Objects.requireNonNull(filePermissions, "filePermissions"));
        directoryPermissions =
                Set.copyOf(Objects.requireNonNull(directoryPermissions, "directoryPermissions"));
        Objects.requireNonNull(initialisationTimeout, "initialisationTimeout");
        if (initialisationTimeout.isNegative()) {
            throw new IllegalArgumentException(
                    "initialisationTimeout must not be negative: " + initialisationTimeout);
        }
        if (!filePermissions.contains(PosixFilePermission.OWNER_READ)
                || !filePermissions.contains(PosixFilePermission.OWNER_WRITE)) {
            throw new IllegalArgumentException(
                    "filePermissions must let the owner read and write, got "
                            + PosixFilePermissions.toString(filePermissions));
        }
    }

    /** Owner-only files and directories, a two-second initialisation wait. */
    public static CxcFileOptions defaults() {
        return DEFAULTS;
    }

    /** The same options with file permissions given as {@code "rw-rw----"}. */
    public CxcFileOptions withFilePermissions(String permissions) {
        return new CxcFileOptions(
                PosixFilePermissions.fromString(permissions),
                directoryPermissions,
                initialisationTimeout);
    }

    /** The same options with directory permissions given as {@code "rwxrwx---"}. */
    public CxcFileOptions withDirectoryPermissions(String permissions) {
        return new CxcFileOptions(
                filePermissions,
                PosixFilePermissions.fromString(permissions),
                initialisationTimeout);
    }

    public CxcFileOptions withInitialisationTimeout(Duration timeout) {
        return new CxcFileOptions(filePermissions, directoryPermissions, timeout);
    }
}
