package io.subetha.cxc.primitive;

import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.OpCounters;
import java.nio.file.Path;
import java.util.Map;

/**
 * An observer's read-only view of a primitive's file, made by {@link PrimitiveType#observe}: its
 * name, kind, file and {@link #describe()} — what the actuator, the CLI and any tool that opens
 * every file of a directory need — and nothing that writes. The primitive behind it is built whole
 * from the settings its file records, so the view never meets a missing codec.
 */
public final class PrimitiveView implements ObservedPrimitive, AutoCloseable {

    private final MappedPrimitive primitive;

    PrimitiveView(MappedPrimitive primitive) {
        this.primitive = primitive;
    }

    @Override
    public String name() {
        return primitive.name();
    }

    @Override
    public String kind() {
        return primitive.kind();
    }

    /** The type that made the file's primitive. */
    public PrimitiveType<?, ?> type() {
        return primitive.type();
    }

    @Override
    public Path file() {
        return primitive.file();
    }

    /** The file system's identity of the mapped file (see {@link MappedPrimitive#fileKey()}). */
    public Object fileKey() {
        return primitive.fileKey();
    }

    @Override
    public Map<String, Object> describe() {
        return primitive.describe();
    }

    /**
     * {@link #describe()} with the liveness probes it leaves out (it probes no process): whether
     * each process the file names as a holder is live, stale or dead, judged with {@code
     * graceEpochs} where the kind counts staleness in epochs.
     */
    public Map<String, Object> inspect(long graceEpochs) {
        return primitive.inspect(graceEpochs);
    }

    /** This process's op counts on the view: reads made through it. */
    @Override
    public OpCounters opCounters() {
        return primitive.opCounters();
    }

    @Override
    public boolean isClosed() {
        return primitive.isClosed();
    }

    /** Unmaps nothing a live handle holds; the view holds nothing in the file. */
    @Override
    public void close() {
        primitive.close();
    }

    @Override
    public String toString() {
        return primitive.toString();
    }
}
