package io.subetha.cxc;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.mmf.MappedFile;
import io.subetha.cxc.mmf.PrimitiveKind;
import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.OpCounters;
import java.nio.file.Path;
import java.util.List;

/**
 * What every primitive is made of: a validated {@link MappedFile}, its body, and the op counters by
 * which it is observed. Subclasses add the protocol; this class answers the observer.
 */
public abstract class MappedPrimitive implements ObservedPrimitive, AutoCloseable {

    protected final MappedFile file;
    protected final AtomicBuffer body;
    protected final OpCounters counters;
    private final PrimitiveKind kind;

    /**
     * @param opNames the primitive's op names in op-kind order ({@code OP_*} constants from 1)
     * @param bodyMagic the u64 every body of this kind starts with ({@link
     *     HeaderDescriptor#asciiMagic}); a body without it is corrupt and refused untouched
     */
    protected MappedPrimitive(
            MappedFile file, PrimitiveKind kind, List<String> opNames, long bodyMagic) {
        this.file = file;
        this.body = file.body();
        this.kind = kind;
        this.counters = new OpCounters(opNames);
        long magic = body.getLongAcquire(0);
        if (magic != bodyMagic) {
            throw new CxcFormatException(
                    String.format(
                            "cannot open %s as %s file: body magic 0x%016x, expected 0x%016x"
                                    + " (\"%s\"); the body is corrupt. The file was left"
                                    + " untouched.",
                            file.path(),
                            kind.withArticle(),
                            magic,
                            bodyMagic,
                            HeaderDescriptor.asciiOf(bodyMagic)));
        }
    }

    /** The file's name without its directory. */
    @Override
    public String name() {
        Path fileName = file.path().getFileName();
        return fileName == null ? file.path().toString() : fileName.toString();
    }

    @Override
    public final PrimitiveKind kind() {
        return kind;
    }

    @Override
    public final Path file() {
        return file.path();
    }

    /** The mapped file, with its header. */
    public final MappedFile mappedFile() {
        return file;
    }

    @Override
    public final OpCounters opCounters() {
        return counters;
    }

    @Override
    public final boolean isClosed() {
        return file.isClosed();
    }

    /**
     * Marks this handle closed. The mapping stays valid until the handle is unreachable; what a
     * primitive holds in the file (leadership, a slot) is released only where its own close says.
     */
    @Override
    public void close() {
        file.close();
    }
}
