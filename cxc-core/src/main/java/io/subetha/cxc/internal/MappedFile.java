package io.subetha.cxc.internal;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

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
    private final Object fileKey;
    private final boolean created;
    private volatile boolean closed;

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
