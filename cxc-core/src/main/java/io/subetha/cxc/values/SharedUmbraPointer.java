package io.subetha.cxc.values;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.observe.OpCounters;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.region.SharedRegion;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The Umbra "German string" (Neumann and Freitag, CIDR 2020) across processes: 16 bytes to keep
 * anywhere (a cell, a record, a mapped file), holding a byte string's length and first 4 bytes
 * inline, then either the rest inline (strings of up to {@link #INLINE_MAX} bytes need no
 * indirection) or a {@link SharedRegion} handle to the whole string's bytes.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ -.
 * |                  Length in bytes (u32)                    0   |  | head word (u64)
 * +---------------------------------------------------------------+  |
 * |                  Prefix: bytes 0..3 (zero-padded)         4   |  |
 * +---------------------------------------------------------------+ -'
 * |                  length <= 12: bytes 4..11 (zero-padded)  8   |  | tail word (u64)
 * |                  length > 12: region handle (u64)             |  |
 * +---------------------------------------------------------------+ -'
 * </pre>
 *
 * <p>Comparing two pointers compares their head words first: strings that differ in length or in
 * their first 4 bytes are told apart by one 64-bit compare, without touching the region. Short
 * strings compare entirely inline. Only long strings with equal heads read the region.
 *
 * <p><b>Lifetime.</b> {@link #store} allocates the out-of-line bytes, writes them, then {@link
 * SharedRegion#disown disowns} the block: a process killed before it returns leaves a block it
 * still owns (freed by {@link SharedRegion#reclaimDead}), and a stored string outlives the process
 * that stored it until someone calls {@link #free}. Immutable; the region's bytes are never written
 * after {@code store}.
 *
 * <p>Op counts ({@link #Op.PREFIX_EQ}, {@link #Op.RESOLVE}) are process-wide: {@link
 * #opCounters()}; the allocation-free static forms are not counted.
 */
public final class SharedUmbraPointer implements Comparable<SharedUmbraPointer> {

    /** Bytes of one pointer. */
    public static final int LENGTH = 16;

    /** The longest string kept entirely inline. */
    public static final int INLINE_MAX = 12;

    public static final int PREFIX_LENGTH = 4;

    /** The ops Umbra pointers count. */
    public enum Op implements OpKind {
        PREFIX_EQ(1),
        RESOLVE(2);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    private static final OpCounters COUNTERS = OpCounters.of(Op.class);
    private static final long LOW = 0xFFFF_FFFFL;

    private final @Nullable SharedRegion region;
    private final long head;
    private final long tail;

    private SharedUmbraPointer(@Nullable SharedRegion region, long head, long tail) {
        this.region = region;
        this.head = head;
        this.tail = tail;
    }

    /** Process-wide counts of {@link #Op.PREFIX_EQ} and {@link #Op.RESOLVE}. */
    public static OpCounters opCounters() {
        return COUNTERS;
    }

    // ---------------------------------------------------------------------------- making

    /**
     * Stores {@code value}: inline if it has at most {@link #INLINE_MAX} bytes (the region is not
     * touched), else in a new block of {@code region}.
     *
     * @throws io.subetha.cxc.CxcCapacityException if the region has no room for it
     */
    public static SharedUmbraPointer store(SharedRegion region, byte[] value) {
        Objects.requireNonNull(region, "region");
        long head = head(value);
        if (value.length <= INLINE_MAX) {
            return new SharedUmbraPointer(region, head, inlineTail(value));
        }
        long handle = region.allocate(value.length);
        region.set(handle, value);
        region.disown(handle);
        return new SharedUmbraPointer(region, head, handle);
    }

    /** {@link #store(SharedRegion, byte[])} of the string's UTF-8 bytes. */
    public static SharedUmbraPointer store(SharedRegion region, String value) {
        return store(region, value.getBytes(StandardCharsets.UTF_8));
    }

    /** The pointer whose 16 bytes are {@code head} and {@code tail} (as {@link #head()} gave). */
    public static SharedUmbraPointer of(SharedRegion region, long head, long tail) {
        return new SharedUmbraPointer(Objects.requireNonNull(region, "region"), head, tail);
    }

    /** Reads the 16 bytes at {@code offset} (8-aligned) of {@code buffer} (acquire). */
    public static SharedUmbraPointer readFrom(
            SharedRegion region, AtomicBuffer buffer, int offset) {
        return of(region, buffer.getLongAcquire(offset), buffer.getLongAcquire(offset + 8));
    }

    /** Writes the 16 bytes at {@code offset} (8-aligned): tail first, head last (release). */
    public void writeTo(AtomicBuffer buffer, int offset) {
        buffer.setLongPlain(offset + 8, tail);
        buffer.setLongRelease(offset, head);
    }

    /** Frees the out-of-line block, if any; the pointer (and every copy) is then dangling. */
    public void free() {
        if (!isInline() && region != null) {
            region.free(tail);
        }
    }

    // ------------------------------------------------------------------------ the words

    /** The head word of {@code value}: its length and first 4 bytes. */
    public static long head(byte[] value) {
        long prefix = 0;
        for (int i = Math.min(PREFIX_LENGTH, value.length) - 1; i >= 0; i--) {
            prefix = (prefix << 8) | (value[i] & 0xFF);
        }
        return (prefix << 32) | (value.length & LOW);
    }

    private static long inlineTail(byte[] value) {
        long tail = 0;
        for (int i = Math.min(INLINE_MAX, value.length) - 1; i >= PREFIX_LENGTH; i--) {
            tail = (tail << 8) | (value[i] & 0xFF);
        }
        return tail;
    }

    public long head() {
        return head;
    }

    public long tail() {
        return tail;
    }

    /** The string's length in bytes. */
    public int length() {
        return (int) head;
    }

    public boolean isInline() {
        return length() <= INLINE_MAX;
    }

    /** The region handle of the out-of-line bytes; 0 for an inline string. */
    public long handle() {
        return isInline() ? 0 : tail;
    }

    // ------------------------------------------------------------------------ comparing

    /**
     * Whether {@code other} has this string's length and first 4 bytes: a necessary condition for
     * equality, decided without the region.
     */
    public boolean prefixEquals(byte[] other) {
        COUNTERS.increment(Op.PREFIX_EQ);
        return head(other) == head;
    }

    /** {@link #prefixEquals(byte[])} of the string's UTF-8 bytes. */
    public boolean prefixEquals(String other) {
        return prefixEquals(other.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether {@code other} has this pointer's length and first 4 bytes. */
    public boolean prefixEquals(SharedUmbraPointer other) {
        COUNTERS.increment(Op.PREFIX_EQ);
        return other.head == head;
    }

    /** Whether the two pointers' strings are equal; allocation-free, the region read last. */
    public boolean contentEquals(SharedUmbraPointer other) {
        return equals(region, head, tail, other.head, other.tail);
    }

    /**
     * Whether two pointers given by their words hold equal strings: heads, then inline tails or the
     * same handle, then the region's bytes. Allocation-free and uncounted, for pointers kept in
     * flat arrays or files.
     */
    public static boolean equals(
            @Nullable SharedRegion region, long headA, long tailA, long headB, long tailB) {
        if (headA != headB) {
            return false;
        }
        if ((int) headA <= INLINE_MAX || tailA == tailB) {
            return tailA == tailB;
        }
        return Objects.requireNonNull(region, "region").payloadEquals(tailA, tailB);
    }

    /**
     * {@link #equals(SharedRegion, long, long, long, long)} of two pointers kept flat in long
     * arrays as their 16 bytes are laid out (head at {@code a[at]}, tail at {@code a[at + 1]}): the
     * heads, length and prefix in one 8-byte load each, decide every pair that differs in length or
     * in its first 4 bytes; the tails are loaded only when the heads are equal.
     */
    public static boolean equals(
            @Nullable SharedRegion region, long[] a, int at, long[] b, int bt) {
        long headA = a[at];
        long headB = b[bt];
        if (headA != headB) {
            return false;
        }
        return equals(region, headA, a[at + 1], headB, b[bt + 1]);
    }

    /** Whether the string equals {@code other}'s bytes. */
    public boolean contentEquals(byte[] other) {
        if (head(other) != head) {
            return false;
        }
        if (isInline()) {
            return inlineTail(other) == tail;
        }
        return Objects.requireNonNull(region, "region").payloadEquals(tail, other, PREFIX_LENGTH);
    }

    /** Whether the string equals {@code other}'s UTF-8 bytes. */
    public boolean contentEquals(String other) {
        return contentEquals(other.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Orders by the strings' bytes, unsigned, lexicographically (shorter first on a common prefix):
     * decided by the prefixes when they differ.
     */
    @Override
    public int compareTo(SharedUmbraPointer other) {
        int byPrefix =
                Integer.compareUnsigned(
                        Integer.reverseBytes((int) (head >>> 32)),
                        Integer.reverseBytes((int) (other.head >>> 32)));
        if (byPrefix != 0) {
            return byPrefix;
        }
        if (Math.min(length(), other.length()) <= PREFIX_LENGTH) {
            return Integer.compare(length(), other.length());
        }
        if (contentEquals(other)) {
            return 0;
        }
        return Arrays.compareUnsigned(resolve(), other.resolve());
    }

    /** {@link #compareTo} against bytes. */
    public int compareTo(byte[] other) {
        return Arrays.compareUnsigned(resolve(), other);
    }

    // ------------------------------------------------------------------------- resolving

    /** The string's bytes: from the two words if inline, else read from the region. */
    public byte[] resolve() {
        COUNTERS.increment(Op.RESOLVE);
        int length = length();
        if (length > INLINE_MAX) {
            return Objects.requireNonNull(region, "region").get(tail);
        }
        byte[] bytes = new byte[length];
        long prefix = head >>> 32;
        for (int i = 0; i < Math.min(PREFIX_LENGTH, length); i++) {
            bytes[i] = (byte) (prefix >>> (8 * i));
        }
        for (int i = PREFIX_LENGTH; i < length; i++) {
            bytes[i] = (byte) (tail >>> (8 * (i - PREFIX_LENGTH)));
        }
        return bytes;
    }

    /** The string, decoding its bytes as UTF-8. */
    public String resolveString() {
        return new String(resolve(), StandardCharsets.UTF_8);
    }

    /** Equal when both hold equal strings (see {@link #contentEquals(SharedUmbraPointer)}). */
    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof SharedUmbraPointer && contentEquals((SharedUmbraPointer) other);
    }

    /** From the head word only: equal strings have equal heads. */
    @Override
    public int hashCode() {
        return Long.hashCode(head * 0x9E3779B97F4A7C15L);
    }

    @Override
    public String toString() {
        return "umbra("
                + length()
                + " bytes"
                + (isInline() ? ", inline" : ", handle 0x" + Long.toHexString(tail))
                + ")";
    }
}
