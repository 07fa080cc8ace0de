package io.subetha.cxc.codec;

import io.subetha.cxc.mmf.AtomicBuffer;
import org.jspecify.annotations.Nullable;

/**
 * What every built-in codec shares: the bounds and value checks that run before any byte is stored,
 * the layout facts a record codec needs of its components, and the fingerprint.
 *
 * <p>{@link #write} and {@link #read} check; {@link #encode} and {@link #decode} trust their caller
 * to have checked, so that a record checks its whole value once before storing its first byte.
 */
abstract class BuiltInCodec<T> implements FixedCodec<T> {

    static final String NULL_VALUE = "FixedCodec values cannot be null";

    private final int size;
    private final int alignment;
    private final String description;
    private final String canonicalLayout;
    private final long fingerprint;

    /**
     * @param description the layout for people, {@link #describe()}
     * @param canonicalLayout the layout for the fingerprint: only what decides the bytes and their
     *     meaning, in a spelling that never changes for cosmetic reasons
     */
    BuiltInCodec(int size, int alignment, String description, String canonicalLayout) {
        this.size = size;
        this.alignment = alignment;
        this.description = description;
        this.canonicalLayout = canonicalLayout;
        this.fingerprint = LayoutFingerprint.of(canonicalLayout);
    }

    @Override
    public final int size() {
        return size;
    }

    /** A power of two, at most 8; a record places this codec's value at a multiple of it. */
    final int alignment() {
        return alignment;
    }

    final String canonicalLayout() {
        return canonicalLayout;
    }

    @Override
    public final long fingerprint() {
        return fingerprint;
    }

    @Override
    public final String describe() {
        return description;
    }

    @Override
    public String toString() {
        return "FixedCodec " + description;
    }

    @Override
    public final void write(AtomicBuffer buffer, int offset, T value) {
        checkBounds(buffer, offset);
        check(value);
        encode(buffer, offset, value);
    }

    @Override
    public final T read(AtomicBuffer buffer, int offset) {
        checkBounds(buffer, offset);
        return decode(buffer, offset);
    }

    /**
     * Throws what {@link #write} would throw for this value, storing nothing.
     *
     * @throws IllegalArgumentException if the value is {@code null} or does not fit the layout
     */
    final void check(@Nullable T value) {
        if (value == null) {
            throw new IllegalArgumentException(NULL_VALUE);
        }
        checkValue(value);
    }

    /** Layout-specific checks of a non-null value; none by default. */
    void checkValue(T value) {}

    /** Stores a checked value whose bytes are known to fit the buffer. */
    abstract void encode(AtomicBuffer buffer, int offset, T value);

    /** Reads a value whose bytes are known to lie inside the buffer. */
    abstract T decode(AtomicBuffer buffer, int offset);

    private void checkBounds(AtomicBuffer buffer, int offset) {
        if (offset < 0 || (long) offset + size > buffer.capacity()) {
            throw new IndexOutOfBoundsException(
                    description
                            + " needs "
                            + size
                            + " bytes at offset "
                            + offset
                            + ", outside a buffer of "
                            + buffer.capacity()
                            + " bytes");
        }
    }

    /** Plain zero stores over {@code length} bytes from {@code offset}, a word at a time. */
    static void zero(AtomicBuffer buffer, int offset, int length) {
        int done = 0;
        for (; done + Long.BYTES <= length; done += Long.BYTES) {
            buffer.setLongPlain(offset + done, 0L);
        }
        for (; done < length; done++) {
            buffer.putByte(offset + done, (byte) 0);
        }
    }
}
