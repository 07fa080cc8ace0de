package io.subetha.cxc.internal;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import org.jspecify.annotations.Nullable;

/**
 * One validated, mapped cxc file: its header as read when it was opened, and its body as an {@link
 * AtomicBuffer}. Obtained from {@link MappedFiles}.
 *
 * <p>The file descriptor is closed as soon as the file is mapped; the mapping lives as long as this
 * object is reachable (Java 17 cannot unmap explicitly without {@code Unsafe}). {@link #close()}
 * therefore only marks the file closed; touching the body afterwards stays memory-safe.
 */
public final class MappedFile implements AutoCloseable {

    private final Path path;
    private final FileHeader header;
    private final MappedByteBuffer mapping;
    private final AtomicBuffer body;
    private final AtomicBuffer headerView;
    private final Object fileKey;
    private final boolean created;
    private volatile boolean closed;

    /** What was found wrong with the file under the mapping, once found; never cleared. */
    private volatile @Nullable String changed;

    MappedFile(
            Path path,
            FileHeader header,
            MappedByteBuffer mapping,
            Object fileKey,
            boolean created) {
        this.path = path;
        this.header = header;
        this.mapping = mapping;
        this.body =
                new AtomicBuffer(
                        mapping.slice(HeaderDescriptor.HEADER_LENGTH, (int) header.bodyLength()));
        this.headerView = new AtomicBuffer(mapping.slice(0, HeaderDescriptor.HEADER_LENGTH));
        this.fileKey = fileKey;
        this.created = created;
    }

    public Path path() {
        return path;
    }

    public FileHeader header() {
        return header;
    }

    /** The primitive's body: offsets start at 0 right after the 64-byte header. */
    public AtomicBuffer body() {
        return body;
    }

    /**
     * The file system's identity of the mapped file (device and inode on Unix): equal for every
     * process that mapped the same file.
     */
    public Object fileKey() {
        return fileKey;
    }

    /** Whether this call created the file (as opposed to opening an existing one). */
    public boolean created() {
        return created;
    }

    /**
     * Asks the operating system to write the mapping to its storage. Coordination never needs it
     * (the page cache is shared by every process on the host and survives a process kill); use it
     * only where state must survive a power loss.
     */
    public void force() {
        if (!mapping.isReadOnly()) {
            mapping.force();
        }
    }

    /**
     * What is wrong with the file under this mapping, or null: it was truncated (pages past its end
     * fault on access, and a CAS the JVM runs outside compiled code crashes the JVM on such a
     * page), or truncated and grown back (its pages read zero). A deleted or replaced file's
     * mapping stays whole and is no problem here. A stat, about a microsecond: for slow paths only.
     * Once a problem is found it is kept, so the handle stays retired even if the file is grown
     * back (its pages would read zero).
     */
    public @Nullable String changeUnderMapping() {
        String known = changed;
        if (known != null) {
            return known;
        }
        BasicFileAttributes attributes;
        try {
            attributes =
                    Files.readAttributes(
                            path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return null; // deleted, or cannot tell: a deleted file's mapping stays whole
        }
        Object key = attributes.fileKey();
        if (key != null && !(fileKey instanceof Path) && !key.equals(fileKey)) {
            // Another file at the path: the mapped one lives on whole unless truncated, which
            // its path no longer shows (the election re-joins a replaced file on its own).
            return null;
        }
        long mapped = mapping.capacity();
        if (attributes.size() < mapped) {
            return retire(
                    "was truncated to "
                            + attributes.size()
                            + " bytes (this handle maps "
                            + mapped
                            + ")");
        }
        if (!headerIntact()) {
            // The same file at full size, its header zero: cut and grown back, its state gone.
            return retire("was truncated and grown back (its pages now read zero)");
        }
        return null;
    }

    /**
     * Whether the header's initialised marker still reads as created: one read of the mapping, no
     * system call. False once the file was truncated and grown back under the mapping (its pages
     * read zero), where a counter read from the body would restart from zero.
     */
    public boolean headerIntact() {
        return headerView.getIntVolatile(HeaderDescriptor.INITIALISED_OFFSET)
                == HeaderDescriptor.INITIALISED;
    }

    /** Whether a problem with the file under the mapping was found; one volatile read. */
    public boolean changedUnderMapping() {
        return changed != null;
    }

    private String retire(String problem) {
        changed = problem;
        return problem;
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "cxc file " + path;
    }
}
