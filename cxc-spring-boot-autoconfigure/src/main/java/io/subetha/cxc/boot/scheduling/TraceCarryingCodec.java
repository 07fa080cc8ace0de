package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A declared scheduler's job codec when {@code cxc.schedulers.<name>.trace-context=true}: the job,
 * then the submitting thread's trace context (its W3C {@code traceparent}, taken when the job is
 * written) in {@value #CONTEXT_BYTES} more bytes of every job slot. Reading a job leaves its
 * context for the reading thread's next {@link #takeLastRead}, which the worker's Observation of
 * the run takes as its parent.
 *
 * <p>The layout (and so the file's codec fingerprint) is the same whether or not this process
 * observes: a process without Micrometer writes an empty context.
 */
public final class TraceCarryingCodec<J> implements FixedCodec<J> {

    /** The bytes a job's context takes: a length byte, then up to 63 bytes of ASCII. */
    public static final int CONTEXT_BYTES = 64;

    private static final ThreadLocal<@Nullable String> LAST_READ = new ThreadLocal<>();

    private final FixedCodec<J> job;
    private final Supplier<@Nullable String> context;

    /**
     * @param job the job's own codec
     * @param context the submitting thread's context, as it is when a job is written (null: none)
     */
    public TraceCarryingCodec(FixedCodec<J> job, Supplier<@Nullable String> context) {
        this.job = job;
        this.context = context;
    }

    /** The context of the job this thread read last, once; null if it had none. */
    public static @Nullable String takeLastRead() {
        String context = LAST_READ.get();
        LAST_READ.remove();
        return context;
    }

    @Override
    public int size() {
        return job.size() + CONTEXT_BYTES;
    }

    @Override
    public void write(AtomicBuffer buffer, int offset, J value) {
        String given = context.get();
        byte[] bytes = given == null ? new byte[0] : given.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length >= CONTEXT_BYTES) {
            bytes = new byte[0]; // not a traceparent: carried as none rather than cut
        }
        job.write(buffer, offset, value); // first: it refuses a bad value before any store
        buffer.putByte(offset + job.size(), (byte) bytes.length);
        buffer.putBytes(offset + job.size() + 1, bytes);
    }

    @Override
    public J read(AtomicBuffer buffer, int offset) {
        J value = job.read(buffer, offset);
        int length = buffer.getByte(offset + job.size()) & 0xff;
        if (length == 0 || length >= CONTEXT_BYTES) {
            LAST_READ.remove();
        } else {
            byte[] bytes = new byte[length];
            buffer.getBytes(offset + job.size() + 1, bytes);
            LAST_READ.set(new String(bytes, StandardCharsets.US_ASCII));
        }
        return value;
    }

    @Override
    public long fingerprint() {
        // FNV-1a over the job's fingerprint and a mark: another layout than the job's alone.
        long hash = 0xcbf2_9ce4_8422_2325L;
        for (byte b : ("cxc.trace-context:" + CONTEXT_BYTES).getBytes(StandardCharsets.UTF_8)) {
            hash = (hash ^ (b & 0xff)) * 0x0000_0100_0000_01b3L;
        }
        for (int i = 0; i < 8; i++) {
            hash = (hash ^ ((job.fingerprint() >>> (8 * i)) & 0xff)) * 0x0000_0100_0000_01b3L;
        }
        return hash == 0 ? 1 : hash;
    }

    @Override
    public String describe() {
        return job.describe() + " + trace context(" + CONTEXT_BYTES + ")";
    }

    @Override
    public String toString() {
        return describe();
    }
}
