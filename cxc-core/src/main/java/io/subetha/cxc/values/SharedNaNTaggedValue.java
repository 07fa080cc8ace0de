package io.subetha.cxc.values;

import static io.subetha.cxc.values.NaNCellsDescriptor.*;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import java.nio.file.Path;
import java.util.Map;

/**
 * The tagged variant of {@link SharedNaNValue}: cells that hold a double or a value of the
 * application's own types, each a <b>user tag</b> (u16, 0..{@link #maxUserTag()}) with a 32-bit
 * value, in the quiet-NaN space's last tag field ({@link SharedNaNValue#TAG_USER}), plus null. The
 * highest user tag is fixed at creation and stored in the file, so every process refuses the same
 * writes: a value of a tag this file does not know, or a built-in boxed value other than null, is
 * an {@link IllegalArgumentException} and the cell is unchanged.
 *
 * <pre>
 *  63 ........ 48   47 ........ 32   31 ................. 0
 * |    0xFFFF     |   user tag    |     value (32 bits)     |
 * </pre>
 *
 * <p>Layout {@link NaNCellsDescriptor}; each cell is written by one release store or CAS.
 */
public final class SharedNaNTaggedValue extends MappedPrimitive {

    /** The highest user tag the format can carry. */
    public static final int MAX_USER_TAG = 0xFFFF;

    private static final long USER_PREFIX = SharedNaNValue.boxed(SharedNaNValue.TAG_USER, 0);
    private static final long LOW = 0xFFFF_FFFFL;

    /** The ops a tagged cell file counts. */
    public enum Op implements OpKind {
        GET(1),
        SET(2),
        COMPARE_AND_SET(3);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /**
     * @param cells the number of cells, 1..{@link NaNCellsDescriptor#MAX_CELLS}
     * @param maxUserTag the highest user tag the cells accept, 0..{@link #MAX_USER_TAG}
     */
    public record Settings(int cells, int maxUserTag) {
        public Settings {
            requireCells(cells);
            CxcSettingsException.requireInRange(
                    "maxUserTag", maxUserTag, 0, MAX_USER_TAG, " (MAX_USER_TAG)");
        }
    }

    public static final PrimitiveType<SharedNaNTaggedValue, Settings> TYPE =
            PrimitiveType.<SharedNaNTaggedValue, Settings>define(
                            PrimitiveKinds.NAN_TAGGED_VALUE, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(TAGGED_MAGIC)
                    .ops(Op.class)
                    .shape(s -> new PrimitiveType.Shape(s.cells(), CELL_LENGTH), BODY_LAYOUT)
                    .initialiser(
                            (body, s) -> {
                                body.setIntPlain(MAX_USER_TAG_OFFSET, s.maxUserTag());
                                SharedNaNValue.fillNull(body, s.cells());
                            })
                    .bodyCheck(
                            body -> {
                                int max = body.getIntAcquire(MAX_USER_TAG_OFFSET);
                                return max < 0 || max > MAX_USER_TAG
                                        ? "highest user tag " + max + ", outside 0.." + MAX_USER_TAG
                                        : null;
                            })
                    .defaults(new Settings(64, 255))
                    .recorded(
                            file ->
                                    new Settings(
                                            file.header().capacity(),
                                            file.body().getIntAcquire(MAX_USER_TAG_OFFSET)))
                    .construct((file, settings, options) -> new SharedNaNTaggedValue(file));

    private final int cells;
    private final int maxUserTag;

    private SharedNaNTaggedValue(MappedFile file) {
        super(file, TYPE);
        this.cells = file.header().capacity();
        this.maxUserTag = body.getIntAcquire(MAX_USER_TAG_OFFSET);
    }

    /**
     * Opens an existing file of {@code expected}'s cells. Its highest user tag is the one it was
     * created with ({@link #maxUserTag()}), whatever {@code expected} says.
     *
     * @throws io.subetha.cxc.CxcCapacityException if it was created with another number of cells
     */
    public static SharedNaNTaggedValue open(Path path, Settings expected) {
        return TYPE.open(path, expected, CxcFileOptions.defaults());
    }

    /**
     * Opens the file, or creates it with {@code settings}; race-safe across processes. An existing
     * file keeps the highest user tag it was created with.
     */
    public static SharedNaNTaggedValue openOrCreate(Path path, Settings settings) {
        return TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    // ------------------------------------------------------------------------------- boxing

    /** A value of user tag {@code userTag} (0..65535): pure, allocation-free. */
    public static long box(int userTag, int value) {
        if ((userTag & ~MAX_USER_TAG) != 0) {
            throw new IllegalArgumentException(
                    "userTag " + userTag + " is outside 0.." + MAX_USER_TAG);
        }
        return USER_PREFIX | ((long) userTag << 32) | (value & LOW);
    }

    /** Whether {@code bits} hold a user-tagged value. */
    public static boolean isTagged(long bits) {
        return (bits & 0xFFFF_0000_0000_0000L) == USER_PREFIX;
    }

    /** The user tag of a user-tagged value. */
    public static int userTagOf(long bits) {
        if (!isTagged(bits)) {
            throw SharedNaNValue.wrongTag(bits, SharedNaNValue.TAG_USER);
        }
        return (int) (bits >>> 32) & MAX_USER_TAG;
    }

    /** The 32-bit value of a user-tagged value. */
    public static int valueOf(long bits) {
        if (!isTagged(bits)) {
            throw SharedNaNValue.wrongTag(bits, SharedNaNValue.TAG_USER);
        }
        return (int) bits;
    }

    // -------------------------------------------------------------------------------- cells

    public int cells() {
        return cells;
    }

    /** The highest user tag this file accepts, as its creator fixed it. */
    public int maxUserTag() {
        return maxUserTag;
    }

    public long get(int index) {
        int offset = offset(index);
        countOp(Op.GET);
        return body.getLongAcquire(offset);
    }

    /** Stores a double ({@link SharedNaNValue#box(double)}), null, or a known user tag's value. */
    public void set(int index, long bits) {
        int offset = offset(index);
        long checked = checked(bits);
        countOp(Op.SET);
        body.setLongRelease(offset, checked);
    }

    /** Shorthand for {@code set(index, box(userTag, value))}. */
    public void set(int index, int userTag, int value) {
        set(index, box(userTag, value));
    }

    public boolean compareAndSet(int index, long expected, long bits) {
        int offset = offset(index);
        long checked = checked(bits);
        countOp(Op.COMPARE_AND_SET);
        return body.compareAndSetLong(offset, expected, checked);
    }

    private long checked(long bits) {
        if (isTagged(bits)) {
            int tag = (int) (bits >>> 32) & MAX_USER_TAG;
            if (tag > maxUserTag) {
                throw new IllegalArgumentException(
                        "user tag "
                                + tag
                                + " is outside this file's 0.."
                                + maxUserTag
                                + " (fixed at creation: maxUserTag)");
            }
            return bits;
        }
        if (!SharedNaNValue.isDouble(bits) && bits != SharedNaNValue.NULL) {
            throw new IllegalArgumentException(
                    String.format(
                            "bits 0x%016x hold %s: a tagged cell holds a double, null or a user"
                                    + " tag's value (use SharedNaNValue for built-in types)",
                            bits, SharedNaNValue.toString(bits)));
        }
        return bits;
    }

    private int offset(int index) {
        if (index < 0 || index >= cells) {
            throw new IllegalArgumentException(
                    "index " + index + " is outside 0.." + (cells - 1) + " (" + cells + " cells)");
        }
        return cellOffset(index);
    }

    @Override
    public Map<String, Object> describe() {
        int tagged = 0;
        for (int i = 0; i < cells; i++) {
            tagged += isTagged(body.getLongAcquire(cellOffset(i))) ? 1 : 0;
        }
        return fields("cells", cells, "maxUserTag", maxUserTag, "taggedCells", tagged);
    }
}
