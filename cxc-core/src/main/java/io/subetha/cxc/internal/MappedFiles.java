package io.subetha.cxc.internal;

import static io.subetha.cxc.mmf.HeaderDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcFileAccessException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcPidNamespaceException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.wait.Backoff;
import io.subetha.cxc.wait.Deadline;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Creates, opens and validates cxc files.
 *
 * <p><b>No torn state.</b> {@link #create} builds the whole file (header, initial body, initialised
 * marker) under a temporary name in the target directory, then publishes it with a hard link, which
 * fails if the name exists; the temporary name is then removed. No process can see a
 * half-initialised file under the real name, and of several creators exactly one wins. ({@code
 * Files.move(ATOMIC_MOVE)} would silently replace an existing file on Linux.)
 *
 * <p><b>Validate before trusting.</b> {@link #open} reads the header with a plain read, checks
 * size, magic, initialised marker, checksum, kind, then version (another kind's file is never "an
 * older release" of this one), and that the body length, capacity and slot size agree with each
 * other and with the real file size, and only then maps the file. A file that fails is never
 * written to. Symbolic links are never followed for the file itself.
 */
public final class MappedFiles {

    private static final long CURRENT_PID = ProcessHandle.current().pid();

    private MappedFiles() {}

    /**
     * Creates a new file; fails if the path exists. Missing parent directories are created with
     * {@link CxcFileOptions#directoryPermissions()}.
     *
     * @param initialiser writes the body's initial state (the body is zero-filled before); runs
     *     before the file is visible to any other process
     */
    public static MappedFile create(
            Path path, FileSpec spec, Consumer<AtomicBuffer> initialiser, CxcFileOptions options) {
        MappedFile file = tryCreate(path, spec, initialiser, options);
        if (file == null) {
            throw new CxcFileAccessException(
                    path
                            + " already exists; open it with open(), or use openOrCreate() when"
                            + " several processes may create it");
        }
        return file;
    }

    /** Opens and validates an existing file; fails if it does not exist. */
    public static MappedFile open(Path path, FileSpec expected, CxcFileOptions options) {
        MappedFile file = tryOpen(path, expected, options);
        if (file == null) {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent)) {
                throw new CxcFileAccessException(
                        "cannot open "
                                + path
                                + ": its directory "
                                + parent
                                + " does not exist; create the file first (create() or"
                                + " openOrCreate() make missing directories)");
            }
            throw new CxcFileAccessException(
                    "cannot open "
                            + path
                            + ": no such file; create it with create() or openOrCreate()");
        }
        return file;
    }

    /**
     * Opens the file if it exists, else creates it. Race-safe: of several processes calling this at
     * once on a new path, exactly one creates the file and every one maps that same file.
     */
    public static MappedFile openOrCreate(
            Path path, FileSpec spec, Consumer<AtomicBuffer> initialiser, CxcFileOptions options) {
        // Each round either returns or observes the other state (gone / appeared), which only a
        // concurrent delete can undo: a few rounds suffice unless someone deletes in a loop.
        for (int attempt = 0; attempt < 8; attempt++) {
            MappedFile opened = tryOpen(path, spec, options);
            if (opened != null) {
                return opened;
            }
            MappedFile created = tryCreate(path, spec, initialiser, options);
            if (created != null) {
                return created;
            }
        }
        throw new CxcFileAccessException(
                path + " keeps appearing and disappearing: is another process deleting it?");
    }

    /** Reads and decodes the header of any cxc file without validating it beyond its size. */
    public static FileHeader readHeader(Path path) {
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer bytes = ByteBuffer.allocate(HEADER_LENGTH);
            readFully(channel, bytes, 0);
            return FileHeader.decode(bytes);
        } catch (IOException e) {
            throw accessFailure("read the header of", path, e);
        }
    }

    // ---------------------------------------------------------------------------------- create

    /**
     * @return the new file, or null if the path already exists
     */
    private static MappedFile tryCreate(
            Path path, FileSpec spec, Consumer<AtomicBuffer> initialiser, CxcFileOptions options) {
        if (options.readOnly()) {
            throw new CxcFileAccessException(
                    "cannot create "
                            + path
                            + " with read-only options: a read-only view only opens existing"
                            + " files");
        }
        if (spec.capacity() < 0 || spec.slotSize() < 0) {
            throw new IllegalArgumentException(
                    "create needs a concrete capacity and slot size, got capacity "
                            + spec.capacity()
                            + ", slot size "
                            + spec.slotSize());
        }
        long bodyLength = spec.layout().bodyLength(spec.capacity(), spec.slotSize());
        if (bodyLength <= 0 || bodyLength % ALIGNMENT != 0 || bodyLength > MAX_BODY_LENGTH) {
            throw new IllegalArgumentException(
                    "body length "
                            + bodyLength
                            + " must be a positive multiple of "
                            + ALIGNMENT
                            + " up to "
                            + MAX_BODY_LENGTH);
        }
        Path target = path.toAbsolutePath();
        Path directory = target.getParent();
        if (directory == null) {
            throw new CxcFileAccessException("cannot create " + path + ": it has no directory");
        }
        ensureDirectory(directory, options.directoryPermissions());
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }

        Path temporary =
                directory.resolve(
                        "."
                                + target.getFileName()
                                + ".creating-"
                                + CURRENT_PID
                                + "-"
                                + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        long fileLength = HEADER_LENGTH + bodyLength;
        try {
            MappedByteBuffer mapping;
            Object fileKey;
            try (FileChannel channel =
                    FileChannel.open(
                            temporary,
                            Set.of(
                                    StandardOpenOption.CREATE_NEW,
                                    StandardOpenOption.READ,
                                    StandardOpenOption.WRITE,
                                    LinkOption.NOFOLLOW_LINKS),
                            PosixFilePermissions.asFileAttribute(options.filePermissions()))) {
                // The umask may have narrowed the mode given at creation: set it exactly.
                Files.setPosixFilePermissions(temporary, options.filePermissions());
                channel.write(ByteBuffer.allocate(1), fileLength - 1);
                mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileLength);
                fileKey =
                        Files.readAttributes(
                                        temporary,
                                        BasicFileAttributes.class,
                                        LinkOption.NOFOLLOW_LINKS)
                                .fileKey();
            }
            FileHeader header =
                    HeaderWriter.forNewFile(
                            spec,
                            bodyLength,
                            CURRENT_PID,
                            PidNamespace.current(),
                            System.currentTimeMillis());
            HeaderWriter.encodeWithoutMarker(header, mapping);
            MappedFile file =
                    new MappedFile(target, header, mapping, keyOrPath(fileKey, target), true);
            initialiser.accept(file.body());
            // Published last: whoever acquires the marker sees the header and the initial body.
            new AtomicBuffer(mapping).setIntRelease(INITIALISED_OFFSET, INITIALISED);
            Interleaving.at(Interleaving.Point.NEW_FILE_WRITTEN);
            try {
                Files.createLink(target, temporary);
            } catch (FileAlreadyExistsException lostRace) {
                return null;
            } catch (FileSystemException refused) {
                if (refusesHardLinks(refused)) {
                    throw noHardLinks(path, refused);
                }
                throw refused;
            }
            return new MappedFile(
                    target,
                    header.with(header.checksum(), INITIALISED),
                    mapping,
                    keyOrPath(fileKey, target),
                    true);
        } catch (UnsupportedOperationException e) {
            throw new CxcFileAccessException(
                    "cannot create "
                            + path
                            + ": its file system supports neither POSIX permissions nor hard links,"
                            + " which cxc needs to publish a file atomically; use a local file"
                            + " system such as /dev/shm or /tmp",
                    e);
        } catch (IOException e) {
            throw accessFailure("create", path, e);
        } finally {
            try {
                Files.deleteIfExists(temporary);
            } catch (IOException ignored) {
                // A leftover ".creating-" file is harmless: it is never opened under that name.
            }
        }
    }

    private static void ensureDirectory(Path directory, Set<PosixFilePermission> permissions) {
        // Following a link here is deliberate: a user may point cxc at a symlinked directory.
        if (Files.isDirectory(directory)) {
            return;
        }
        List<Path> missing = new ArrayList<>();
        for (Path p = directory; p != null && !Files.exists(p); p = p.getParent()) {
            missing.add(0, p);
        }
        for (Path p : missing) {
            try {
                Files.createDirectory(p, PosixFilePermissions.asFileAttribute(permissions));
                // The umask may have narrowed the mode given at creation: set it exactly.
                Files.setPosixFilePermissions(p, permissions);
            } catch (FileAlreadyExistsException raced) {
                // Another process made it first: fine, as long as it is a directory (checked
                // below).
            } catch (IOException e) {
                throw accessFailure("create the directory", p, e);
            }
        }
        if (!Files.isDirectory(directory)) {
            throw new CxcFileAccessException(
                    "cannot create a file in "
                            + directory
                            + ": it exists but is not a directory; remove it or choose another"
                            + " directory");
        }
    }

    // ------------------------------------------------------------------------------------ open

    /**
     * @return the validated file, or null if nothing exists at the path
     */
    private static MappedFile tryOpen(Path path, FileSpec expected, CxcFileOptions options) {
        BasicFileAttributes attributes;
        try {
            attributes =
                    Files.readAttributes(
                            path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw accessFailure("open", path, e);
        }
        if (attributes.isSymbolicLink()) {
            throw new CxcFileAccessException(
                    "refusing to open "
                            + path
                            + ": it is a symbolic link, and cxc never follows links to its files"
                            + " (someone else could redirect it); point cxc at the real file");
        }
        if (attributes.isDirectory()) {
            throw new CxcFileAccessException(
                    "cannot open "
                            + path
                            + " as "
                            + expected.kindWithArticle()
                            + " file: it is a directory; remove it or choose another file name");
        }
        if (!attributes.isRegularFile()) {
            throw new CxcFileAccessException(
                    "cannot open "
                            + path
                            + ": it is not a regular file (a device, FIFO or socket)");
        }
        Set<OpenOption> modes =
                options.readOnly()
                        ? Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)
                        : Set.of(
                                StandardOpenOption.READ,
                                StandardOpenOption.WRITE,
                                LinkOption.NOFOLLOW_LINKS);
        try (FileChannel channel = FileChannel.open(path, modes)) {
            FileHeader header = awaitValidHeader(path, channel, expected, options);
            long fileLength = HEADER_LENGTH + header.bodyLength();
            Interleaving.at(Interleaving.Point.OPEN_VALIDATED);
            // A read-write map() grows a file that is shorter than the region: check again right
            // before it, so a file that shrank since validation is refused, never grown back.
            // (A shrink inside the few microseconds between this check and the map cannot be told
            // apart afterwards; the header re-read below still catches one that reached it.)
            long sizeNow = channel.size();
            if (sizeNow != fileLength) {
                throw format(
                        path,
                        expected,
                        "the file changed size while it was being opened (validated at "
                                + fileLength
                                + " bytes, now "
                                + sizeNow
                                + "): something truncates or rewrites it");
            }
            MappedByteBuffer mapping =
                    channel.map(
                            options.readOnly()
                                    ? FileChannel.MapMode.READ_ONLY
                                    : FileChannel.MapMode.READ_WRITE,
                            0,
                            fileLength);
            if (mapping.alignmentOffset(0, ALIGNMENT) != 0) {
                throw new CxcException(
                        "mapping of " + path + " is not " + ALIGNMENT + "-byte aligned");
            }
            // Re-read through the mapping: the file must still be the one just validated.
            if (!FileHeader.decode(mapping).equals(header)) {
                throw new CxcFormatException(
                        path
                                + " changed while it was being opened; retry, and check that no"
                                + " other program writes it");
            }
            Object fileKey = attributes.fileKey();
            return new MappedFile(path, header, mapping, keyOrPath(fileKey, path), false);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw accessFailure("open", path, e);
        }
    }

    private static FileHeader awaitValidHeader(
            Path path, FileChannel channel, FileSpec expected, CxcFileOptions options)
            throws IOException {
        Deadline deadline = Deadline.after(options.initialisationTimeout());
        // A creator writes its header once, taking milliseconds: no spin, parks from 50 µs to 10
        // ms.
        Backoff backoff = Backoff.parking(50_000, 10_000_000);
        while (true) {
            long size = channel.size();
            if (size < HEADER_LENGTH) {
                throw format(
                        path,
                        expected,
                        size == 0
                                ? "the file is empty (0 bytes)"
                                : "the file is "
                                        + size
                                        + " bytes, shorter than the "
                                        + HEADER_LENGTH
                                        + "-byte cxc header (truncated, or not a cxc file)");
            }
            ByteBuffer bytes = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            readFully(channel, bytes, 0);
            FileHeader header = FileHeader.decode(bytes);
            if (header.magic() != MAGIC) {
                throw format(
                        path,
                        expected,
                        String.format(
                                "wrong magic number: expected 0x%016x (\"SUBETHA1\"), found 0x%016x;"
                                        + " this is not a cxc file",
                                MAGIC, header.magic()));
            }
            if (header.initialised() == INITIALISED) {
                validate(path, header, size, bytes, expected);
                return header;
            }
            if (header.initialised() != 0) {
                throw format(
                        path,
                        expected,
                        String.format(
                                "corrupt initialised marker 0x%08x (expected 0x%08x or 0)",
                                header.initialised(), INITIALISED));
            }
            if (deadline.passed()) {
                throw new CxcTimeoutException(
                        path
                                + " exists but was never marked initialised within "
                                + options.initialisationTimeout().toMillis()
                                + " ms (created by PID "
                                + header.creatorPid()
                                + "); its creator probably died while writing it. If no process"
                                + " uses it, delete it and start again");
            }
            backoff.idle();
        }
    }

    private static void validate(
            Path path, FileHeader header, long fileSize, ByteBuffer bytes, FileSpec expected) {
        int checksum = FileHeader.checksumOf(bytes);
        if (checksum != header.checksum()) {
            throw format(
                    path,
                    expected,
                    String.format(
                            "header checksum mismatch (stored 0x%08x, computed 0x%08x): the header"
                                    + " is corrupt",
                            header.checksum(), checksum));
        }
        if (header.kindCode() != expected.kindCode()) {
            throw format(
                    path,
                    expected,
                    "it holds "
                            + expected.describeKind(header.kindCode())
                            + ", not "
                            + expected.kindWithArticle()
                            + "; each primitive needs a file of its own");
        }
        // After the kind: another kind's file is never "an older release" of this one.
        if (header.layoutVersion() != expected.layoutVersion()) {
            String hint =
                    Integer.compareUnsigned(header.layoutVersion(), expected.layoutVersion()) > 0
                            ? "it was written by a newer CXC release: upgrade this application's CXC"
                            : "it was written by an older CXC release: stop every process using"
                                    + " it, delete it, and let this release recreate it";
            throw format(
                    path,
                    expected,
                    "layout version "
                            + Integer.toUnsignedString(header.layoutVersion())
                            + ", but this CXC reads version "
                            + expected.layoutVersion()
                            + "; "
                            + hint);
        }
        long bodyLength = header.bodyLength();
        if (bodyLength <= 0
                || bodyLength % ALIGNMENT != 0
                || bodyLength > MAX_BODY_LENGTH
                || HEADER_LENGTH + bodyLength != fileSize) {
            throw format(path, expected, badBodyLength(bodyLength, fileSize));
        }
        long layoutLength;
        try {
            layoutLength = expected.layout().bodyLength(header.capacity(), header.slotSize());
        } catch (IllegalArgumentException e) {
            throw format(
                    path,
                    expected,
                    "the header declares capacity "
                            + header.capacity()
                            + " and slot size "
                            + header.slotSize()
                            + ", which "
                            + expected.kindWithArticle()
                            + " cannot have ("
                            + e.getMessage()
                            + ")");
        }
        if (layoutLength != bodyLength) {
            throw format(
                    path,
                    expected,
                    "capacity "
                            + header.capacity()
                            + " and slot size "
                            + header.slotSize()
                            + " need a "
                            + layoutLength
                            + "-byte body, but the header declares "
                            + bodyLength);
        }
        if (expected.capacity() != FileSpec.ANY && expected.capacity() != header.capacity()) {
            throw new CxcCapacityException(
                    path
                            + " was created with capacity "
                            + header.capacity()
                            + ", but was opened expecting capacity "
                            + expected.capacity()
                            + "; open it with capacity "
                            + header.capacity()
                            + ", or give the new capacity a new file");
        }
        if (expected.slotSize() != FileSpec.ANY && expected.slotSize() != header.slotSize()) {
            throw format(
                    path,
                    expected,
                    "slot size "
                            + header.slotSize()
                            + " bytes, but this code expects "
                            + expected.slotSize()
                            + " (a different payload type?)");
        }
        long ours = PidNamespace.current();
        if (header.pidNamespace() == PidNamespace.UNKNOWN && ours != PidNamespace.UNKNOWN) {
            throw new CxcPidNamespaceException(
                    path
                            + " records no PID namespace (0), but this process runs in PID"
                            + " namespace "
                            + ours
                            + ": its creator could not tell its namespace, so its PIDs cannot be"
                            + " compared with ours and sharing it could allow two leaders. If no"
                            + " process uses it, delete it and let a process of this namespace"
                            + " recreate it");
        }
        if (header.pidNamespace() != PidNamespace.UNKNOWN
                && ours != PidNamespace.UNKNOWN
                && header.pidNamespace() != ours) {
            throw new CxcPidNamespaceException(
                    path
                            + " was created in PID namespace "
                            + header.pidNamespace()
                            + " but this process runs in PID namespace "
                            + ours
                            + "; PIDs from different namespaces (containers) cannot be compared,"
                            + " so sharing it would allow two leaders. Run every participant in"
                            + " one PID namespace (e.g. docker --pid=host or a shared pod), or"
                            + " give each namespace its own file");
        }
    }

    // --------------------------------------------------------------------------------- helpers

    /**
     * {@code HEADER_LENGTH + bodyLength} for a positive {@code bodyLength}, without overflowing.
     */
    /** Why a declared body length is refused: the first of its faults that holds. */
    private static String badBodyLength(long bodyLength, long fileSize) {
        String declares = "the header declares a " + bodyLength + "-byte body";
        if (bodyLength <= 0) {
            return declares
                    + ", which no file can have, and the file is "
                    + fileSize
                    + " bytes (corrupt)";
        }
        if (HEADER_LENGTH + bodyLength != fileSize) {
            return declares
                    + ", so the file should be "
                    + requiredLength(bodyLength)
                    + " bytes, but it is "
                    + fileSize
                    + " bytes (truncated or corrupt)";
        }
        if (bodyLength % ALIGNMENT != 0) {
            return declares
                    + ", not a multiple of "
                    + ALIGNMENT
                    + " bytes as every body is (corrupt)";
        }
        return declares
                + ", more than the largest a file may have ("
                + MAX_BODY_LENGTH
                + " bytes) (corrupt)";
    }

    private static String requiredLength(long bodyLength) {
        return java.math.BigInteger.valueOf(bodyLength)
                .add(java.math.BigInteger.valueOf(HEADER_LENGTH))
                .toString();
    }

    private static CxcFormatException format(Path path, FileSpec expected, String problem) {
        return new CxcFormatException(
                "cannot open "
                        + path
                        + " as "
                        + expected.kindWithArticle()
                        + " file (layout version "
                        + expected.layoutVersion()
                        + "): "
                        + problem
                        + ". The file was left untouched.");
    }

    private static void readFully(FileChannel channel, ByteBuffer bytes, long position)
            throws IOException {
        long at = position;
        while (bytes.hasRemaining()) {
            int read = channel.read(bytes, at);
            if (read < 0) {
                throw new IOException("unexpected end of file at byte " + at);
            }
            at += read;
        }
    }

    private static Object keyOrPath(Object fileKey, Path path) {
        return fileKey != null ? fileKey : path.toAbsolutePath().normalize();
    }

    /**
     * Whether link(2) failed the way Linux reports a file system without hard links (vfat, many
     * FUSE and network mounts): EPERM or EOPNOTSUPP, an ordinary I/O error in Java, not an {@link
     * UnsupportedOperationException}. (EACCES, a permission problem, is an {@link
     * AccessDeniedException} and is reported as such.)
     */
    private static boolean refusesHardLinks(FileSystemException e) {
        String reason = e.getReason();
        return !(e instanceof AccessDeniedException)
                && reason != null
                && (reason.equals("Operation not permitted")
                        || reason.equals("Operation not supported"));
    }

    private static CxcFileAccessException noHardLinks(Path path, FileSystemException e) {
        return new CxcFileAccessException(
                "cannot create "
                        + path
                        + ": its file system refused a hard link ("
                        + e.getReason()
                        + "); cxc publishes a new file with a hard link so that no process ever"
                        + " sees it half-written, and this file system (vfat, a FUSE or network"
                        + " mount?) does not seem to support them. Use a local file system such as"
                        + " /dev/shm or /tmp",
                e);
    }

    private static CxcFileAccessException accessFailure(String action, Path path, IOException e) {
        if (e instanceof AccessDeniedException) {
            return new CxcFileAccessException(
                    "cannot "
                            + action
                            + " "
                            + path
                            + ": permission denied; run as the user that owns it, or fix its"
                            + " owner and mode",
                    e);
        }
        String reason =
                e instanceof FileSystemException fse && fse.getReason() != null
                        ? fse.getReason()
                        : e.toString();
        return new CxcFileAccessException("cannot " + action + " " + path + ": " + reason, e);
    }
}
