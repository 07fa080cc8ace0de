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
 * @param readOnly map files read-only: an observer's view (an inspector, a dashboard) that can
 *     never write, needs only read permission, and works on files of another user that the mode
 *     lets it read; {@code create} is refused, and so is every operation that writes
 */
public record CxcFileOptions(
        Set<PosixFilePermission> filePermissions,
        Set<PosixFilePermission> directoryPermissions,
        Duration initialisationTimeout,
        boolean readOnly) {

    public static final Set<PosixFilePermission> OWNER_ONLY_FILE =
            PosixFilePermissions.fromString("rw-------");
    public static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY =
            PosixFilePermissions.fromString("rwx------");
    public static final Duration DEFAULT_INITIALISATION_TIMEOUT = Duration.ofSeconds(2);

    private static final CxcFileOptions DEFAULTS =
            new CxcFileOptions(
                    OWNER_ONLY_FILE, OWNER_ONLY_DIRECTORY, DEFAULT_INITIALISATION_TIMEOUT, false);

    /** The three settings that apply to a writable view. */
    public CxcFileOptions(
            Set<PosixFilePermission> filePermissions,
            Set<PosixFilePermission> directoryPermissions,
            Duration initialisationTimeout) {
        this(filePermissions, directoryPermissions, initialisationTimeout, false);
    }

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
                initialisationTimeout,
                readOnly);
    }

    /** The same options with directory permissions given as {@code "rwxrwx---"}. */
    public CxcFileOptions withDirectoryPermissions(String permissions) {
        return new CxcFileOptions(
                filePermissions,
                PosixFilePermissions.fromString(permissions),
                initialisationTimeout,
                readOnly);
    }

    public CxcFileOptions withInitialisationTimeout(Duration timeout) {
        return new CxcFileOptions(filePermissions, directoryPermissions, timeout, readOnly);
    }

    /** The same options, mapping read-only (see {@link #readOnly()}). */
    public CxcFileOptions asReadOnly() {
        return new CxcFileOptions(
                filePermissions, directoryPermissions, initialisationTimeout, true);
    }
}
