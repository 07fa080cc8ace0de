package io.subetha.cxc.versioned;

import static io.subetha.cxc.versioned.SharedTimePointTileDescriptor.*;

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
 * Time-keyed snapshot slots for sampling at times known in advance, shared by every process that
 * maps the file: a tile of {@code count} time points ({@code start}, {@code start + step}, ..., at
 * most {@link SharedTimePointTileDescriptor#TILE_CAP}), each slot holding the value last
 * {@linkplain #record recorded} for its point; {@link #valueAt} returns the value as of a time: the
 * one recorded at the latest recorded point at or before it. Times are whatever unit the caller
 * chooses (epoch milliseconds, ticks, sequence numbers). Layout: {@link
 * SharedTimePointTileDescriptor}.
 *
 * <h2>Protocol</h2>
 *
 * A recorder claims the point's slot through {@link OwnerRecord} (CAS from the free word, or from a
 * dead recorder's, to its PID under the next generation), writes the value, release-stores the
 * stamp (that generation) and frees the slot by CAS from its own word. A reader reads the owner
 * word and the stamp, copies the value and reads them again: the copy is whole only if the stamp
 * equals the owner key both times, since any new claim installs a new key before writing a byte.
 *
 * <ul>
 *   <li>A recorder killed holding the slot leaves a key the stamp does not match: readers pass the
 *       point over (its last value was being replaced and is gone) until the next recorder, who
 *       takes the slot from the dead one at once (judged through {@code /proc}).
 *   <li>A live recorder is never displaced: concurrent recorders of one point take turns (the last
 *       to record wins), a reader waits for a live recorder with a bound.
 * </ul>
 *
 * <p>Thread-safe; one instance may serve every thread of a process.
 *
 * @param <T> the value type, stored by its {@link FixedCodec}
 */
public final class SharedTimePointTile<T> extends MappedPrimitive {

    /** The ops a tile counts: a record is a push, a lookup a read at a time. */
    public enum Op implements OpKind {
        PUSH(1),
        READ_AT(2);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** How long a recorder or reader waits for a live recorder of the same point. */
    public static final Duration SLOT_WAIT = Duration.ofSeconds(10);

    /**
     * A recorder holds a point only for one codec write: two spins catch most, then the wait parks
     * from 4 µs, doubling up to {@link Backoff#MAX_PARK_NANOS}.
     */
    private static final int SLOT_SPINS = 2;

    private static final long SLOT_MIN_PARK_NANOS = 4_000;

    /**
     * A tile's creation settings.
     *
     * @param start the first point's time
     * @param step the time between points, 1 or more
     * @param count the points, 1..{@link SharedTimePointTileDescriptor#TILE_CAP}
     * @param values the values' codec, at most {@link SharedTimePointTileDescriptor#MAX_VALUE_SIZE}
     *     bytes
     */
    public record Settings<T>(long start, long step, int count, FixedCodec<T> values) {
        public Settings {
            CxcSettingsException.requireInRange("count", count, 1, TILE_CAP, " (TILE_CAP)");
            if (step < 1) {
                throw new CxcSettingsException("step", "step must be 1 or more, got " + step);
            }
            try {
                Math.addExact(start, Math.multiplyExact(step, (long) count - 1));
            } catch (ArithmeticException overflow) {
                throw new CxcSettingsException(
                        "step",
                        "the last point, start "
                                + start
                                + " + step "
                                + step
                                + " * "
                                + (count - 1)
                                + ", overflows a long");
            }
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
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<SharedTimePointTile<?>, Settings<?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<SharedTimePointTile, Settings>define(
                                    PrimitiveKinds.TIME_POINT_TILE, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    settings ->
                                            new PrimitiveType.Shape(
                                                    settings.count(),
                                                    strideFor(settings.values().size())),
                                    BODY_LAYOUT)
                            .codecs(settings -> List.of(settings.values()))
                            .initialiser(
                                    (body, settings) -> {
                                        body.setIntPlain(POINTS_OFFSET, settings.count());
                                        body.setIntPlain(
                                                SLOT_STRIDE_OFFSET,
                                                strideFor(settings.values().size()));
                                        body.setLongPlain(START_OFFSET, settings.start());
                                        body.setLongPlain(STEP_OFFSET, settings.step());
                                    })
                            .bodyCheck(SharedTimePointTile::problem)
                            .defaults(new Settings<>(0, 1, 16, FixedCodec.INT64))
                            .recorded(
                                    file ->
                                            new Settings<>(
                                                    file.body().getLongPlain(START_OFFSET),
                                                    file.body().getLongPlain(STEP_OFFSET),
                                                    file.header().capacity(),
                                                    PrimitiveType.recordedCodec(file, 0)))
                            .construct(
                                    (file, settings, options) ->
                                            new SharedTimePointTile(file, settings));

    private static final long PID = Pids.current();
    private static final long START_TIME = OwnerRecord.startTimeOf(PID);

    private final int count;
    private final int stride;
    private final long start;
    private final long step;
    private final FixedCodec<T> codec;

    private SharedTimePointTile(MappedFile file, Settings<T> settings) {
        super(file, TYPE);
        this.count = file.header().capacity();
        this.stride = file.header().slotSize();
        // Checked by problem(): step >= 1 and the last point does not overflow.
        this.start = body.getLongPlain(START_OFFSET);
        this.step = body.getLongPlain(STEP_OFFSET);
        this.codec = settings.values();
        if (start != settings.start() || step != settings.step()) {
            // The header checked the count and the codec; the points' times live in the body.
            file.close();
            throw new CxcFormatException(
                    "cannot open "
                            + file.path()
                            + " as a time-point-tile from "
                            + settings.start()
                            + " every "
                            + settings.step()
                            + ": it was created with points from "
                            + start
                            + " every "
                            + step
                            + ". Open it with the points it was created with, or give the new"
                            + " points a new file. The file was left untouched.");
        }
    }

    // ---------------------------------------------------------------------------- factories

    /**
     * Opens an existing tile of {@code expected}'s points, with its codec.
     *
     * @throws io.subetha.cxc.CxcCapacityException if it holds another count of points
     * @throws CxcFormatException if its points start or step elsewhere, or it was created with
     *     another codec
     */
    public static <T> SharedTimePointTile<T> open(Path path, Settings<T> expected) {
        return TYPE.open(path, expected, CxcFileOptions.defaults());
    }

    /**
     * Opens the tile, or creates it with {@code settings}; race-safe across processes.
     *
     * @throws CxcFormatException if the file holds other points (start, step or count) or was
     *     created with another codec
     */
    public static <T> SharedTimePointTile<T> openOrCreate(Path path, Settings<T> settings) {
        return TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    private static @Nullable String problem(AtomicBuffer body) {
        int points = body.getIntPlain(POINTS_OFFSET);
        int stride = body.getIntPlain(SLOT_STRIDE_OFFSET);
        int valueSize = body.getIntPlain(VALUE_SIZE_OFFSET);
        long start = body.getLongPlain(START_OFFSET);
        long step = body.getLongPlain(STEP_OFFSET);
        if (points < 1
                || points > TILE_CAP
                || stride < 64
                || stride % 64 != 0
                || bodyLength(points, stride) != body.capacity()) {
            return "the body declares "
                    + points
                    + " points and slot stride "
                    + stride
                    + ", which do not fill its "
                    + body.capacity()
                    + " bytes";
        }
        if (valueSize < 1 || valueSize > MAX_VALUE_SIZE || strideFor(valueSize) != stride) {
            return "value size " + valueSize + " does not fit slot stride " + stride;
        }
        try {
            if (step < 1) {
                throw new ArithmeticException();
            }
            Math.addExact(start, Math.multiplyExact(step, (long) points - 1));
        } catch (ArithmeticException e) {
            return "points from " + start + " every " + step + " (" + points + " points)";
        }
        return null;
    }

    // ----------------------------------------------------------------------------- record

    /**
     * Records {@code value} for the point at {@code time}; the last recorder of a point wins.
     *
     * @throws IllegalArgumentException if {@code time} is not one of the tile's points (naming its
     *     range), or the codec refuses the value (the point keeps its previous value)
     * @throws CxcTimeoutException if a live recorder held the point for {@link #SLOT_WAIT}
     */
    public void record(long time, T value) {
        int point = pointOf(time);
        if (value == null) {
            throw new IllegalArgumentException("value must not be null");
        }
        countOp(Op.PUSH);
        int slot = slotOffset(point, stride);
        long deadline = 0;
        Backoff backoff = null; // made by the first wait: a call that never waits allocates none
        while (true) {
            long word = OwnerRecord.ownerWord(body, slot);
            if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                    || OwnerRecord.isDead(body, slot, word)) {
                long mine = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(word));
                if (OwnerRecord.claim(body, slot, word, mine, START_TIME, System::nanoTime)) {
                    long stamp = body.getLongAcquire(slot + STAMP_OFFSET);
                    try {
                        codec.write(body, slot + VALUE_OFFSET, value);
                        body.setLongRelease(slot + STAMP_OFFSET, OwnerRecord.key(mine));
                    } catch (RuntimeException refused) {
                        // The codec stored nothing: the old value (if any) is whole, under our key.
                        if (stamp != 0 && stamp == OwnerRecord.key(word)) {
                            body.setLongRelease(slot + STAMP_OFFSET, OwnerRecord.key(mine));
                        }
                        throw refused;
                    } finally {
                        OwnerRecord.release(body, slot, mine);
                    }
                    return;
                }
                continue;
            }
            if (backoff == null) {
                backoff = new Backoff(SLOT_SPINS, SLOT_MIN_PARK_NANOS, Backoff.MAX_PARK_NANOS);
            }
            deadline = waitFor(word, point, deadline, backoff);
        }
    }

    // ------------------------------------------------------------------------------ reads

    /**
     * The value as of {@code time}: the one recorded at the latest recorded point at or before it;
     * empty before the first point, or if no point up to {@code time} was recorded.
     */
    public Optional<T> valueAt(long time) {
        countOp(Op.READ_AT);
        if (time < start) {
            return Optional.empty();
        }
        long offset = time - start; // no overflow: both are longs and time >= start ...
        int last =
                offset < 0 // ... unless the difference exceeds Long.MAX_VALUE
                        ? count - 1
                        : (int) Math.min(offset / step, count - 1);
        for (int point = last; point >= 0; point--) {
            T value = read(point);
            if (value != null) {
                return Optional.of(value);
            }
        }
        return Optional.empty();
    }

    /** The value recorded at exactly the point {@code time}, if any. */
    public Optional<T> recordedAt(long time) {
        int point = pointOf(time);
        countOp(Op.READ_AT);
        return Optional.ofNullable(read(point));
    }

    private @Nullable T read(int point) {
        int slot = slotOffset(point, stride);
        long deadline = 0;
        Backoff backoff = null; // made by the first wait: a call that never waits allocates none
        while (true) {
            long word = OwnerRecord.ownerWord(body, slot);
            long stamp = body.getLongAcquire(slot + STAMP_OFFSET);
            if (stamp == 0) {
                return null;
            }
            if (OwnerRecord.key(word) == stamp) {
                T value;
                try {
                    value = codec.read(body, slot + VALUE_OFFSET);
                } catch (CxcFormatException torn) {
                    value = null;
                }
                VarHandle.acquireFence();
                if (OwnerRecord.key(OwnerRecord.ownerWord(body, slot)) == stamp
                        && body.getLongAcquire(slot + STAMP_OFFSET) == stamp) {
                    if (value == null) {
                        throw TYPE.corrupt(
                                file.path(),
                                "the value at point " + pointTime(point) + " does not decode");
                    }
                    return value;
                }
                continue; // a recorder claimed it while we read: read its value
            }
            if (OwnerRecord.isDead(body, slot, word)) {
                return null; // died replacing the value: nothing whole until the next record
            }
            if (backoff == null) {
                backoff = new Backoff(SLOT_SPINS, SLOT_MIN_PARK_NANOS, Backoff.MAX_PARK_NANOS);
            }
            deadline = waitFor(word, point, deadline, backoff);
        }
    }

    /** Parks once while a live recorder holds {@code point}; throws past the deadline. */
    private long waitFor(long word, int point, long deadline, Backoff backoff) {
        long now = System.nanoTime();
        if (deadline == 0) {
            deadline = now + SLOT_WAIT.toNanos();
        } else if (now - deadline > 0) {
            throw new CxcTimeoutException(
                    "waited "
                            + SLOT_WAIT
                            + " for the point "
                            + pointTime(point)
                            + " of "
                            + file.path()
                            + ", held by live PID "
                            + OwnerRecord.pid(word)
                            + " recording it");
        }
        backoff.idle();
        return deadline;
    }

    private int pointOf(long time) {
        long offset = time - start;
        if (time < start || offset < 0 || offset % step != 0 || offset / step >= count) {
            throw new IllegalArgumentException(
                    "time "
                            + time
                            + " is not one of the tile's points: "
                            + count
                            + " points from "
                            + start
                            + " to "
                            + end()
                            + ", every "
                            + step);
        }
        return (int) (offset / step);
    }

    /** The time of the first point. */
    public long start() {
        return start;
    }

    public long step() {
        return step;
    }

    /** How many points the tile holds. */
    public int count() {
        return count;
    }

    /** The time of the last point. */
    public long end() {
        return start + step * (count - 1);
    }

    /** The time of point {@code index} (0..count-1). */
    public long pointTime(int index) {
        Objects.checkIndex(index, count);
        return start + step * index;
    }

    @Override
    public Map<String, Object> describe() {
        int recorded = 0;
        for (int point = 0; point < count; point++) {
            if (body.getLongAcquire(slotOffset(point, stride) + STAMP_OFFSET) != 0) {
                recorded++;
            }
        }
        return fields("start", start, "step", step, "points", count, "recordedPoints", recorded);
    }
}
