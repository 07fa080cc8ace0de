package io.subetha.cxc.primitive;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.OpCounters;
import java.nio.file.Path;
import java.util.Map;

/**
 * What every primitive is made of: a validated mapped file, its body, and the op counters by which
 * it is observed; made only by its {@link PrimitiveType}. Subclasses add the protocol and {@link
 * #describe()}; this class answers the observer.
 */
public abstract class MappedPrimitive implements ObservedPrimitive, AutoCloseable {

    protected final MappedFile file;
    protected final AtomicBuffer body;

    /**
     * Not final: a handle that takes over another's work counts into the other's ({@link
     * #countInto}).
     */
    protected OpCounters counters;

    private final PrimitiveType<?, ?> type;

    protected MappedPrimitive(MappedFile file, PrimitiveType<?, ?> type) {
        this.file = file;
        this.body = file.body();
        this.type = type;
        this.counters = type.newCounters();
    }

    /** The file's name without its directory. */
    @Override
    public String name() {
        Path fileName = file.path().getFileName();
        return fileName == null ? file.path().toString() : fileName.toString();
    }

    @Override
    public final String kind() {
        return type.name();
    }

    /** The type this primitive was made by. */
    public final PrimitiveType<?, ?> type() {
        return type;
    }

    @Override
    public final Path file() {
        return file.path();
    }

    /**
     * The file system's identity of the mapped file (device and inode on Unix): equal for every
     * process that mapped the same file, and different once the path names a new file.
     */
    public final Object fileKey() {
        return file.fileKey();
    }

    /** Whether this handle created the file, rather than opening an existing one. */
    public final boolean createdFile() {
        return file.created();
    }

    /**
     * From now on this handle counts its ops into {@code predecessor}'s counters, so what observes
     * the predecessor (the starter's meters hold its counters) goes on counting the work this
     * handle took over from it, such as a re-opened election file.
     */
    protected final void countInto(MappedPrimitive predecessor) {
        if (predecessor.type != type) {
            throw new IllegalArgumentException(
                    "a " + type.name() + " cannot count into a " + predecessor.type.name());
        }
        counters = predecessor.counters;
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
     * Refuses what would make a closed handle take part again (claim a participant record no close
     * will free): call it where a primitive claims one.
     */
    protected final void requireOpen() {
        if (isClosed()) {
            throw new IllegalStateException(
                    file()
                            + " is closed: this "
                            + type.name()
                            + " handle takes part no more; open a new one");
        }
    }

    /**
     * Marks this handle closed. The mapping stays valid until the handle is unreachable; what a
     * primitive holds in the file (leadership, a slot) is released only where its own close says.
     */
    @Override
    public void close() {
        file.close();
    }

    /**
     * {@link #describe()} with the liveness probes it leaves out, for an inspector: a primitive
     * whose file names holders (a leader, slots, participants) adds whether each is live, stale or
     * dead, judged with {@code graceEpochs} where it counts staleness in epochs. Probing a process
     * costs microseconds, which {@code describe()} (read on every actuator scrape) does not spend.
     */
    public Map<String, Object> inspect(long graceEpochs) {
        return describe();
    }

    /** "heartbeat-table /dev/shm/app/participants.heartbeat {capacity=64, ...}". */
    @Override
    public String toString() {
        return kind() + " " + file.path() + " " + describe();
    }

    /**
     * The error for a word of the body this handle read that the protocol never writes: thrown
     * instead of trusting it (a loop over it might never end, an offset from it might fall outside
     * the body).
     */
    protected final CxcFormatException damaged(String problem) {
        return type.damaged(file.path(), problem);
    }

    /** A convenience for {@link #describe()}: an ordered, unmodifiable map of pairs. */
    protected static Map<String, Object> fields(Object... keysAndValues) {
        java.util.LinkedHashMap<String, Object> map = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(map);
    }
}
