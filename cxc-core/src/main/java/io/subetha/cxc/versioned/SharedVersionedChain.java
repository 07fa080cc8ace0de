package io.subetha.cxc.versioned;

import static io.subetha.cxc.versioned.SharedVersionedChainDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.wait.Backoff;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An append-only versioned history shared by every process that maps its file: each {@link #push}
 * makes a new version (1, 2, 3, ... across all processes, distinct and gap-free), and the last
 * {@code retained} versions can be read back ({@link #readAt}), for time-travel debugging, snapshot
 * isolation and audit trails. Layout: {@link SharedVersionedChainDescriptor}.
 *
 * <h2>Protocol</h2>
 *
 * <b>Push.</b> A pusher takes the next version {@code v} with one {@code getAndAdd} (that word is
 * the only order: versions are never given twice and never skipped), then claims {@code v}'s slot
 * ({@code v % retained}) through {@link OwnerRecord}: a CAS from the free word to its PID under
 * {@code v}'s lap key. Holding it, it writes the value, release-stores the stamp {@code v}, and
 * frees the record (one CAS from its own word). If the slot's stamp is already past {@code v}, a
 * later version took the slot first: {@code v} was evicted before it was written, and the push
 * returns at once.
 *
 * <ul>
 *   <li>Killed after taking {@code v}, before its claim: {@code v} is never written and reads
 *       {@link VersionRead.Status#NOT_WRITTEN}; later pushes are not held up.
 *   <li>Killed holding the slot: the next pusher to that slot judges the owner dead through {@code
 *       /proc} and claims it from exactly the judged word. If the stamp was not written, the dead
 *       push's version reads NOT_WRITTEN (its half-written bytes are never published); if it was,
 *       the value is whole.
 * </ul>
 *
 * A live pusher is never displaced: another push to its slot (one {@code retained} versions later)
 * waits for it, with a bound.
 *
 * <p><b>Read.</b> A reader reads the owner word and the stamp, copies the value, and reads both
 * again: the copy is the value of {@code v} only if the stamp is {@code v} and the owner key is
 * still {@code v}'s both times (any later claim installs another key before writing a byte). A
 * reader racing the overwrite of an evicted slot therefore answers NOT_RETAINED, never wrong bytes.
 *
 * <p>Thread-safe; one instance may serve every thread of a process.
 *
 * @param <T> the value type, stored by its {@link FixedCodec}
 */
public final class SharedVersionedChain<T> extends MappedPrimitive {

    /** The ops a chain counts, exported under these names. */
    public enum Op implements OpKind {
        PUSH(1),
        READ_AT(2),
        CURRENT(3),
        VISIBLE_MASK(4);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** How long a push waits for a live pusher of an older version still writing its slot. */
    public static final Duration SLOT_WAIT = Duration.ofSeconds(10);

    /**
     * A chain's creation settings.
     *
     * @param retained versions readable back, 1..{@link
     *     SharedVersionedChainDescriptor#MAX_RETAINED}
     * @param values the values' codec, at most {@link
     *     SharedVersionedChainDescriptor#MAX_VALUE_SIZE} bytes
     */
    public record Settings<T>(int retained, FixedCodec<T> values) {
        static final int DEFAULT_RETAINED = 16;

        public Settings {
            CxcSettingsException.requireInRange(
                    "retained", retained, 1, MAX_RETAINED, " (MAX_RETAINED)");
            Objects.requireNonNull(values, "values");
            if (values.size() > MAX_VALUE_SIZE) {
                throw new CxcSettingsException(
                        "values",
                        "values must be at most "
                                + MAX_VALUE_SIZE
                                + " bytes (MAX_VALUE_SIZE), got "
                                + values.describe()
                                + " of "
                                + values.size());
            }
            CxcSettingsException.requireBodyFits(
                    "retained",
                    "retained " + retained + " of " + values.size() + "-byte values",
                    bodyLength(retained, strideFor(values.size())),
                    io.subetha.cxc.mmf.HeaderDescriptor.MAX_BODY_LENGTH);
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<SharedVersionedChain<?>, Settings<?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<SharedVersionedChain, Settings>define(
                                    PrimitiveKinds.VERSIONED_CHAIN, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    settings ->
                                            new PrimitiveType.Shape(
                                                    settings.retained(),
                                                    strideFor(settings.values().size())),
                                    BODY_LAYOUT)
                            .codecs(settings -> List.of(settings.values()))
                            .initialiser(
                                    (body, settings) -> {
                                        body.setIntPlain(RETAINED_OFFSET, settings.retained());
                                        body.setIntPlain(
                                                SLOT_STRIDE_OFFSET,
                                                strideFor(settings.values().size()));
                                    })
                            .bodyCheck(SharedVersionedChain::problem)
                            .defaults(new Settings<>(Settings.DEFAULT_RETAINED, FixedCodec.INT64))
                            .recorded(
                                    file ->
                                            new Settings<>(
                                                    file.header().capacity(),
                                                    PrimitiveType.recordedCodec(file, 0)))
                            .construct(
                                    (file, settings, options) ->
                                            new SharedVersionedChain(file, settings));

    private static final long PID = Pids.current();
    private static final long START_TIME = OwnerRecord.startTimeOf(PID);

    /** Reads a value retries when a pusher's release moves the owner word under it. */
    private static final int READ_ATTEMPTS = 64;

    private final int retained;
    private final int stride;
    private final FixedCodec<T> codec;

    private SharedVersionedChain(MappedFile file, Settings<T> settings) {
        super(file, TYPE);
        this.retained = file.header().capacity();
        this.stride = file.header().slotSize();
        this.codec = settings.values();
    }

    // ---------------------------------------------------------------------------- factories

    /**
     * Opens an existing chain retaining {@code expected}'s versions, with its codec.
     *
     * @throws io.subetha.cxc.CxcCapacityException if it retains another number of versions
     * @throws CxcFormatException if it was created with another codec
     */
    public static <T> SharedVersionedChain<T> open(Path path, Settings<T> expected) {
        return TYPE.open(path, expected, CxcFileOptions.defaults());
    }

    /** Opens the chain, or creates it with {@code settings}; race-safe across processes. */
    public static <T> SharedVersionedChain<T> openOrCreate(Path path, Settings<T> settings) {
        return TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    private static @Nullable String problem(AtomicBuffer body) {
        int retained = body.getIntPlain(RETAINED_OFFSET);
        int stride = body.getIntPlain(SLOT_STRIDE_OFFSET);
        int valueSize = body.getIntPlain(VALUE_SIZE_OFFSET);
        if (retained < 1
                || retained > MAX_RETAINED
                || stride < 64
                || stride % 64 != 0
                || bodyLength(retained, stride) != body.capacity()) {
            return "the body declares "
                    + retained
                    + " versions retained and slot stride "
                    + stride
                    + ", which do not fill its "
                    + body.capacity()
                    + " bytes";
        }
        if (valueSize < 1 || valueSize > MAX_VALUE_SIZE || strideFor(valueSize) != stride) {
            return "value size " + valueSize + " does not fit slot stride " + stride;
        }
        return null;
    }

    // ------------------------------------------------------------------------------- push

    /**
     * Pushes {@code value} as a new version.
     *
     * @return the new version: 1 for the first push to the file, then 2, 3, ...
     * @throws CxcTimeoutException if a live pusher of the version {@code retained} earlier held the
     *     slot for {@link #SLOT_WAIT}
     * @throws IllegalArgumentException if the codec refuses the value (its version is then never
     *     written, and reads NOT_WRITTEN)
     */
    public long push(T value) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null");
        }
        countOp(Op.PUSH);
        long version = body.getAndAddLong(VERSIONS_OFFSET, 1) + 1;
        if (version < 1) { // versions count up from 1 and never wrap in a file's life
            throw damaged("its version counter stood at " + (version - 1) + ", below 0");
        }
        int slot = slotOffset(version, retained, stride);
        long deadline = 0;
        Backoff backoff = null; // made by the first wait: a push that never waits allocates none
        while (true) {
            long word = OwnerRecord.ownerWord(body, slot);
            if (body.getLongAcquire(slot + STAMP_OFFSET) >= version) {
                return version; // a later version took the slot: this one is evicted already
            }
            if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                    || OwnerRecord.isDead(body, slot, word)) {
                long mine = OwnerRecord.ownerWord(PID, lapKey(version, retained));
                if (OwnerRecord.claim(body, slot, word, mine, START_TIME, () -> version)) {
                    try {
                        if (body.getLongAcquire(slot + STAMP_OFFSET) < version) {
                            codec.write(body, slot + VALUE_OFFSET, value);
                            body.setLongRelease(slot + STAMP_OFFSET, version);
                        }
                    } finally {
                        OwnerRecord.release(body, slot, mine);
                    }
                    return version;
                }
                continue;
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + SLOT_WAIT.toNanos();
                backoff = Backoff.parking(Backoff.MIN_PARK_NANOS, Backoff.MAX_PARK_NANOS);
            } else if (now - deadline > 0) {
                throw new CxcTimeoutException(
                        "push of version "
                                + version
                                + " to "
                                + file.path()
                                + " waited "
                                + SLOT_WAIT
                                + " for its slot, held by live PID "
                                + OwnerRecord.pid(word)
                                + " pushing the version "
                                + retained
                                + " before it");
            }
            backoff.idle();
        }
    }

    // ------------------------------------------------------------------------------ reads

    /**
     * The value pushed as {@code version}, if it is still retained.
     *
     * @see #lookup for why a version has no value
     */
    public Optional<T> readAt(long version) {
        passFileCheck();
        countOp(Op.READ_AT);
        return read(version).toOptional();
    }

    /** What the chain holds for {@code version}: its value, or why it has none. */
    public VersionRead<T> lookup(long version) {
        countOp(Op.READ_AT);
        return read(version);
    }

    private VersionRead<T> read(long version) {
        long given = body.getLongVolatile(VERSIONS_OFFSET);
        if (version < 1 || version > given) {
            return new VersionRead<>(version, VersionRead.Status.NEVER_PUSHED, null);
        }
        int slot = slotOffset(version, retained, stride);
        long key = lapKey(version, retained);
        for (int attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
            long word = OwnerRecord.ownerWord(body, slot);
            long stamp = body.getLongAcquire(slot + STAMP_OFFSET);
            if (stamp > version) {
                return new VersionRead<>(version, VersionRead.Status.NOT_RETAINED, null);
            }
            if (stamp < version) {
                // Not written here: in flight or abandoned, unless evicted before it was written.
                boolean evicted = given - version >= retained;
                return new VersionRead<>(
                        version,
                        evicted ? VersionRead.Status.NOT_RETAINED : VersionRead.Status.NOT_WRITTEN,
                        null);
            }
            if (OwnerRecord.key(word) != key) {
                // A later version's pusher holds the slot and may be writing it.
                return new VersionRead<>(version, VersionRead.Status.NOT_RETAINED, null);
            }
            T value;
            try {
                value = codec.read(body, slot + VALUE_OFFSET);
            } catch (CxcFormatException torn) {
                value = null;
            }
            VarHandle.acquireFence();
            long after = OwnerRecord.ownerWord(body, slot);
            if (OwnerRecord.key(after) == key
                    && body.getLongAcquire(slot + STAMP_OFFSET) == version) {
                if (value == null) {
                    throw TYPE.corrupt(
                            file.path(), "the value of version " + version + " does not decode");
                }
                return new VersionRead<>(version, VersionRead.Status.READABLE, value);
            }
            if (OwnerRecord.key(after) != key) {
                return new VersionRead<>(version, VersionRead.Status.NOT_RETAINED, null);
            }
        }
        return new VersionRead<>(version, VersionRead.Status.NOT_RETAINED, null);
    }

    /** The newest readable value, if any (a push still in flight is passed over). */
    public Optional<T> current() {
        countOp(Op.CURRENT);
        long newest = body.getLongVolatile(VERSIONS_OFFSET);
        for (long v = newest; v >= 1 && newest - v < retained; v--) {
            VersionRead<T> read = read(v);
            if (read.isReadable()) {
                return read.toOptional();
            }
        }
        return Optional.empty();
    }

    /**
     * The highest version given to a push so far (0 before the first): the next push gets one more.
     */
    public long currentVersion() {
        passFileCheck();
        return body.getLongVolatile(VERSIONS_OFFSET);
    }

    /**
     * Bit {@code i} is set iff version {@code currentVersion() - i} is readable now ({@code i <
     * 64}), as one pass over the slots sees them.
     */
    public long visibleMask() {
        countOp(Op.VISIBLE_MASK);
        long newest = body.getLongVolatile(VERSIONS_OFFSET);
        long mask = 0;
        for (int i = 0; i < 64 && i < retained && newest - i >= 1; i++) {
            if (read(newest - i).isReadable()) {
                mask |= 1L << i;
            }
        }
        return mask;
    }

    public int retained() {
        return retained;
    }

    @Override
    public Map<String, Object> describe() {
        return fields("retained", retained, "currentVersion", currentVersion());
    }
}
