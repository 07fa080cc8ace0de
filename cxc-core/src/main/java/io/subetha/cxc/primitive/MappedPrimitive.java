package io.subetha.cxc.primitive;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.OpCounters;
import io.subetha.cxc.observe.OpKind;
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

    /** How many operations pass between two checks of the file under the mapping. */
    static final int OPS_BETWEEN_FILE_CHECKS = 1024;

    /**
     * Operations until the next check of the file; the first operation checks. A plain field: a
     * count lost to a race only moves the next check a little.
     */
    private int opsUntilFileCheck;

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
     * Counts an operation of this handle, passing the {@linkplain #passFileCheck file check} on the
     * way: every operation counts before it touches the mapping.
     */
    protected final void countOp(OpKind op) {
        passFileCheck();
        counters.increment(op);
    }

    /** {@link #countOp(OpKind)} by the op's code, for a hot path that keeps the code at hand. */
    protected final void countOp(int opCode) {
        passFileCheck();
        counters.increment(opCode);
    }

    /**
     * The file check every operation of a primitive that opts in passes: a decrement on the fast
     * path; every {@value #OPS_BETWEEN_FILE_CHECKS}th operation (and the first) runs {@link
     * #checkFile()}, and once the file was found changed every operation refuses without touching
     * the mapping (touching a truncated page faults, or, in a CAS the JVM runs outside compiled
     * code, crashes the JVM).
     */
    protected final void passFileCheck() {
        if (--opsUntilFileCheck < 0) {
            checkFile();
            opsUntilFileCheck = OPS_BETWEEN_FILE_CHECKS;
        }
    }

    /**
     * Checks that the path still names the mapped file at its full length (a stat, about a
     * microsecond), for a slow path: a ticker, a scan, a failure.
     *
     * @throws CxcFormatException naming the file and what happened, once it was deleted, truncated
     *     or replaced while this handle had it open; the handle is retired for good
     */
    public final void checkFile() {
        String change = file.changeUnderMapping();
        if (change != null) {
            opsUntilFileCheck = -1; // every operation from now on asks again, and is refused
            throw changedUnderHandle(change);
        }
    }

    /**
     * For an operation about to issue a fencing token from what it read in the body: refuses if the
     * header reads zero, as it does once the file was truncated and grown back under the mapping,
     * so a token never restarts from a zeroed counter. One read of the mapping.
     *
     * @throws CxcFormatException as {@link #checkFile()} does
     */
    protected final void requireIntactHeader() {
        if (!file.headerIntact()) {
            checkFile();
        }
    }

    /**
     * The error for a fault the JVM raised on an access to this handle's mapping ({@code
     * InternalError: a fault occurred in a recent unsafe memory access}), which a page of a file
     * truncated under the mapping raises: a {@link CxcFormatException} saying so, or {@code fault}
     * itself if the file looks whole.
     */
    protected final RuntimeException faulted(InternalError fault) {
        String change = file.changeUnderMapping();
        if (change == null) {
            throw fault;
        }
        opsUntilFileCheck = -1;
        CxcFormatException error = changedUnderHandle(change);
        error.initCause(fault);
        return error;
    }

    private CxcFormatException changedUnderHandle(String change) {
        return new CxcFormatException(
                file.path()
                        + " "
                        + change
                        + " while this "
                        + type.name()
                        + " handle had it open: its state is gone from under the handle, which"
                        + " refuses every operation from now on. Never truncate, replace or"
                        + " delete a file in use; stop its processes, recreate the file and"
                        + " reopen it");
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
