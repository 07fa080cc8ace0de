package io.subetha.cxc.values;

import static io.subetha.cxc.values.NaNCellsDescriptor.*;

import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import java.nio.file.Path;
import java.util.Map;

/**
 * NaN-boxing for cross-process polymorphism: a {@code double}, an {@code int}, a {@code u32}, a
 * {@code boolean}, a 47-bit offset, a 48-bit integer or null in one 64-bit word, the type told
 * inline, so two processes exchange typed values with no type channel beside them. The static
 * functions box and unbox (pure, allocation-free); an instance is a file of {@code cells} such
 * words ({@link NaNCellsDescriptor}), each read, written and compared-and-set atomically.
 *
 * <p><b>Encoding.</b> A double is its own IEEE-754 bits, except that every NaN is boxed as the
 * canonical {@link #QNAN} (positive, quiet, payload 0): a real double that is a NaN stays a double.
 * Every other value is a negative quiet NaN, {@link #BOX_PREFIX} (sign, exponent and quiet bit set:
 * the top 13 bits), with a 3-bit tag field in bits 48..50 and a 48-bit payload below. No boxed
 * double has those 13 bits set (its NaNs are canonicalised; {@code -Infinity} has the quiet bit
 * clear), so {@link #tagOf} is one mask and compare.
 *
 * <pre>
 *  63  62..52  51  50..48   47 .......................... 0
 * | 1 | 1...1 | 1 | field |          payload (48 bits)       |   a boxed value, tag = field + 1
 * | s | exp   |   mantissa (a double's own bits)             |   anything else: a double
 * </pre>
 *
 * <p>A cell is one aligned u64: a write is one release store or CAS, so a SIGKILL mid-write leaves
 * the old value or the new, never half of one; readers read with acquire.
 */
public final class SharedNaNValue extends MappedPrimitive {

    /** The canonical quiet NaN: what every NaN double boxes as ({@code Double.NaN}'s bits). */
    public static final long QNAN = 0x7FF8_0000_0000_0000L;

    /** The top 13 bits every boxed non-double has: sign, all-ones exponent, quiet bit. */
    public static final long BOX_PREFIX = 0xFFF8_0000_0000_0000L;

    /** {@link #tagOf} for a double (any bits that are not a boxed value). */
    public static final int TAG_DOUBLE = 0;

    public static final int TAG_NULL = 1;
    public static final int TAG_BOOL = 2;
    public static final int TAG_INT32 = 3;
    public static final int TAG_UINT32 = 4;

    /** An unsigned offset below 2^47 (a position in a file, a region offset). */
    public static final int TAG_OFFSET = 5;

    /** A signed integer of 48 bits: -2^47..2^47-1. */
    public static final int TAG_INT48 = 6;

    /** Reserved for a later built-in type. */
    public static final int TAG_RESERVED = 7;

    /** A user-tagged value of {@link SharedNaNTaggedValue}: a u16 user tag and a 32-bit value. */
    public static final int TAG_USER = 8;

    public static final long MAX_OFFSET = (1L << 47) - 1;
    public static final long MIN_INT48 = -(1L << 47);
    public static final long MAX_INT48 = (1L << 47) - 1;

    private static final long PAYLOAD = 0x0000_FFFF_FFFF_FFFFL;
    private static final long LOW = 0xFFFF_FFFFL;

    /** The boxed null. */
    public static final long NULL = boxed(TAG_NULL, 0);

    public static final long TRUE = boxed(TAG_BOOL, 1);
    public static final long FALSE = boxed(TAG_BOOL, 0);

    /** The ops a cell file counts. */
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
     */
    public record Settings(int cells) {
        public Settings {
            requireCells(cells);
        }
    }

    public static final PrimitiveType<SharedNaNValue, Settings> TYPE =
            PrimitiveType.<SharedNaNValue, Settings>define(PrimitiveKinds.NAN_VALUE, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(VALUE_MAGIC)
                    .ops(Op.class)
                    .shape(s -> new PrimitiveType.Shape(s.cells(), CELL_LENGTH), BODY_LAYOUT)
                    .initialiser((body, s) -> fillNull(body, s.cells()))
                    .defaults(new Settings(64))
                    .recorded(file -> new Settings(file.header().capacity()))
                    .construct((file, settings, options) -> new SharedNaNValue(file));

    private final int cells;

    private SharedNaNValue(MappedFile file) {
        super(file, TYPE);
        this.cells = file.header().capacity();
    }

    /**
     * Opens an existing file of {@code expected}'s cells.
     *
     * @throws io.subetha.cxc.CxcCapacityException if it was created with another number of cells
     */
    public static SharedNaNValue open(Path path, Settings expected) {
        return TYPE.open(path, expected, CxcFileOptions.defaults());
    }

    /** Opens the file, or creates it with {@code settings}; race-safe across processes. */
    public static SharedNaNValue openOrCreate(Path path, Settings settings) {
        return TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    static void fillNull(AtomicBuffer body, int cells) {
        for (int i = 0; i < cells; i++) {
            body.setLongPlain(cellOffset(i), NULL);
        }
    }

    // ------------------------------------------------------------------------------- boxing

    static long boxed(int tag, long payload) {
        return BOX_PREFIX | ((long) (tag - 1) << 48) | (payload & PAYLOAD);
    }

    /** {@link #TAG_DOUBLE} for a double, else the boxed value's tag (1..8). */
    public static int tagOf(long bits) {
        return (bits & BOX_PREFIX) != BOX_PREFIX ? TAG_DOUBLE : 1 + (int) ((bits >>> 48) & 7);
    }

    public static boolean isDouble(long bits) {
        return (bits & BOX_PREFIX) != BOX_PREFIX;
    }

    /** A double's bits; every NaN becomes {@link #QNAN}, -0.0 and the infinities stay. */
    public static long box(double value) {
        long bits = Double.doubleToRawLongBits(value);
        return value != value ? QNAN : bits;
    }

    public static long box(int value) {
        return boxed(TAG_INT32, value & LOW);
    }

    public static long box(boolean value) {
        return value ? TRUE : FALSE;
    }

    /** An unsigned 32-bit value, 0..2^32-1. */
    public static long boxUint32(long value) {
        if ((value & ~LOW) != 0) {
            throw new IllegalArgumentException(
                    "value " + value + " is outside the u32 range 0..4294967295");
        }
        return boxed(TAG_UINT32, value);
    }

    /** An offset, 0..{@link #MAX_OFFSET} (2^47-1). */
    public static long boxOffset(long offset) {
        if (offset < 0 || offset > MAX_OFFSET) {
            throw new IllegalArgumentException(
                    "offset " + offset + " is outside 0.." + MAX_OFFSET + " (47 bits)");
        }
        return boxed(TAG_OFFSET, offset);
    }

    /** A signed 48-bit integer, {@link #MIN_INT48}..{@link #MAX_INT48}. */
    public static long boxInt48(long value) {
        if (value < MIN_INT48 || value > MAX_INT48) {
            throw new IllegalArgumentException(
                    "value "
                            + value
                            + " is outside the int48 range "
                            + MIN_INT48
                            + ".."
                            + MAX_INT48);
        }
        return boxed(TAG_INT48, value);
    }

    public static double unboxDouble(long bits) {
        if ((bits & BOX_PREFIX) == BOX_PREFIX) {
            throw wrongTag(bits, TAG_DOUBLE);
        }
        return Double.longBitsToDouble(bits);
    }

    public static int unboxInt(long bits) {
        if ((bits & 0xFFFF_FFFF_0000_0000L) != boxed(TAG_INT32, 0)) {
            throw wrongTag(bits, TAG_INT32);
        }
        return (int) bits;
    }

    public static long unboxUint32(long bits) {
        if ((bits & 0xFFFF_FFFF_0000_0000L) != boxed(TAG_UINT32, 0)) {
            throw wrongTag(bits, TAG_UINT32);
        }
        return bits & LOW;
    }

    public static boolean unboxBool(long bits) {
        if (bits == TRUE) {
            return true;
        }
        if (bits != FALSE) {
            throw wrongTag(bits, TAG_BOOL);
        }
        return false;
    }

    public static long unboxOffset(long bits) {
        if ((bits & 0xFFFF_8000_0000_0000L) != boxed(TAG_OFFSET, 0)) {
            throw wrongTag(bits, TAG_OFFSET);
        }
        return bits & PAYLOAD;
    }

    public static long unboxInt48(long bits) {
        if ((bits & 0xFFFF_0000_0000_0000L) != boxed(TAG_INT48, 0)) {
            throw wrongTag(bits, TAG_INT48);
        }
        return (bits << 16) >> 16;
    }

    public static boolean isNull(long bits) {
        return bits == NULL;
    }

    /** "double", "int32", ...: for messages. */
    public static String tagName(int tag) {
        switch (tag) {
            case TAG_DOUBLE:
                return "double";
            case TAG_NULL:
                return "null";
            case TAG_BOOL:
                return "bool";
            case TAG_INT32:
                return "int32";
            case TAG_UINT32:
                return "uint32";
            case TAG_OFFSET:
                return "offset";
            case TAG_INT48:
                return "int48";
            case TAG_RESERVED:
                return "reserved";
            case TAG_USER:
                return "user-tagged";
            default:
                return "tag " + tag;
        }
    }

    /** "int32 -7", "double NaN": a boxed value for people. */
    public static String toString(long bits) {
        int tag = tagOf(bits);
        switch (tag) {
            case TAG_DOUBLE:
                return "double " + Double.longBitsToDouble(bits);
            case TAG_NULL:
                return bits == NULL ? "null" : String.format("null 0x%016x", bits);
            case TAG_BOOL:
                return "bool " + ((bits & 1) != 0);
            case TAG_INT32:
                return "int32 " + (int) bits;
            case TAG_UINT32:
                return "uint32 " + (bits & LOW);
            case TAG_OFFSET:
                return "offset " + (bits & PAYLOAD);
            case TAG_INT48:
                return "int48 " + ((bits << 16) >> 16);
            case TAG_USER:
                return "user tag " + ((bits >>> 32) & 0xFFFF) + " value " + (int) bits;
            default:
                return String.format("%s 0x%016x", tagName(tag), bits);
        }
    }

    static IllegalArgumentException wrongTag(long bits, int expected) {
        return new IllegalArgumentException(
                String.format(
                        "bits 0x%016x hold %s, not %s %s",
                        bits,
                        toString(bits),
                        "aeiou".indexOf(tagName(expected).charAt(0)) >= 0 ? "an" : "a",
                        tagName(expected)));
    }

    // -------------------------------------------------------------------------------- cells

    /** The number of cells. */
    public int cells() {
        return cells;
    }

    /** Cell {@code index}'s bits (acquire). */
    public long get(int index) {
        int offset = offset(index);
        countOp(Op.GET);
        return body.getLongAcquire(offset);
    }

    /** Stores {@code bits} in cell {@code index} (release): a boxed value from this class. */
    public void set(int index, long bits) {
        int offset = offset(index);
        countOp(Op.SET);
        body.setLongRelease(offset, bits);
    }

    /** Stores {@code bits} if the cell still holds exactly {@code expected}. */
    public boolean compareAndSet(int index, long expected, long bits) {
        int offset = offset(index);
        countOp(Op.COMPARE_AND_SET);
        return body.compareAndSetLong(offset, expected, bits);
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
        int[] byTag = new int[9];
        for (int i = 0; i < cells; i++) {
            byTag[tagOf(body.getLongAcquire(cellOffset(i)))]++;
        }
        return fields(
                "cells", cells, "nullCells", byTag[TAG_NULL], "doubleCells", byTag[TAG_DOUBLE]);
    }
}
