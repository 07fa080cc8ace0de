package io.subetha.cxc.mmf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Aligned atomic access to a region of a mapped (or direct) buffer through {@link VarHandle}s.
 * Method names say the memory ordering of each access, so a reader can tell at the call site what
 * an access guarantees.
 *
 * <p>Offsets are relative to the region. Every access is bounds-checked by the {@link VarHandle}
 * (an offset read from a file can at worst throw {@link IndexOutOfBoundsException}, never touch
 * memory outside the region), and volatile/acquire/release/CAS accesses must be naturally aligned
 * (misaligned ones throw {@link IllegalStateException}). Heap buffers are refused: they lose atomic
 * access on Java 22+ (JDK-8318966).
 */
public final class AtomicBuffer {

    private static final VarHandle LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT =
            MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORT =
            MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

    private final ByteBuffer buffer;

    /**
     * @param buffer a direct buffer whose address is 8-byte aligned; its position and limit define
     *     the region
     */
    public AtomicBuffer(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException(
                    "AtomicBuffer needs a mapped or direct buffer: heap buffers lose atomic access"
                            + " on Java 22+ (JDK-8318966)");
        }
        ByteBuffer region = buffer.slice().order(ByteOrder.LITTLE_ENDIAN);
        if (region.capacity() > 0 && region.alignmentOffset(0, 8) != 0) {
            throw new IllegalArgumentException(
                    "AtomicBuffer needs an 8-byte aligned region; this one starts "
                            + region.alignmentOffset(0, 8)
                            + " bytes past an 8-byte boundary");
        }
        this.buffer = region;
    }

    /**
     * The region itself (little-endian), for a primitive whose hottest read must skip this
     * wrapper's extra indirection; use it only through a {@code byteBufferViewVarHandle}.
     */
    public ByteBuffer byteBuffer() {
        return buffer;
    }

    /** Region length in bytes. */
    public int capacity() {
        return buffer.capacity();
    }

    /** A sub-region; {@code offset} must keep 8-byte alignment. */
    public AtomicBuffer slice(int offset, int length) {
        return new AtomicBuffer(buffer.slice(offset, length));
    }

    public long getLongPlain(int offset) {
        return (long) LONG.get(buffer, offset);
    }

    public long getLongOpaque(int offset) {
        return (long) LONG.getOpaque(buffer, offset);
    }

    public long getLongAcquire(int offset) {
        return (long) LONG.getAcquire(buffer, offset);
    }

    public long getLongVolatile(int offset) {
        return (long) LONG.getVolatile(buffer, offset);
    }

    public void setLongPlain(int offset, long value) {
        LONG.set(buffer, offset, value);
    }

    public void setLongOpaque(int offset, long value) {
        LONG.setOpaque(buffer, offset, value);
    }

    public void setLongRelease(int offset, long value) {
        LONG.setRelease(buffer, offset, value);
    }

    public void setLongVolatile(int offset, long value) {
        LONG.setVolatile(buffer, offset, value);
    }

    public boolean compareAndSetLong(int offset, long expected, long value) {
        return LONG.compareAndSet(buffer, offset, expected, value);
    }

    public long compareAndExchangeLong(int offset, long expected, long value) {
        return (long) LONG.compareAndExchange(buffer, offset, expected, value);
    }

    public long getAndAddLong(int offset, long delta) {
        return (long) LONG.getAndAdd(buffer, offset, delta);
    }

    public long getAndSetLong(int offset, long value) {
        return (long) LONG.getAndSet(buffer, offset, value);
    }

    public int getIntPlain(int offset) {
        return (int) INT.get(buffer, offset);
    }

    public int getIntAcquire(int offset) {
        return (int) INT.getAcquire(buffer, offset);
    }

    public int getIntVolatile(int offset) {
        return (int) INT.getVolatile(buffer, offset);
    }

    public void setIntPlain(int offset, int value) {
        INT.set(buffer, offset, value);
    }

    public void setIntRelease(int offset, int value) {
        INT.setRelease(buffer, offset, value);
    }

    public void setIntVolatile(int offset, int value) {
        INT.setVolatile(buffer, offset, value);
    }

    public boolean compareAndSetInt(int offset, int expected, int value) {
        return INT.compareAndSet(buffer, offset, expected, value);
    }

    public int getAndAddInt(int offset, int delta) {
        return (int) INT.getAndAdd(buffer, offset, delta);
    }

    public short getShortPlain(int offset) {
        return (short) SHORT.get(buffer, offset);
    }

    public void setShortPlain(int offset, short value) {
        SHORT.set(buffer, offset, value);
    }

    public byte getByte(int offset) {
        return buffer.get(offset);
    }

    public void putByte(int offset, byte value) {
        buffer.put(offset, value);
    }

    /** Plain copy out; pair with an acquire read of whatever publishes the bytes. */
    public void getBytes(int offset, byte[] destination) {
        buffer.get(offset, destination);
    }

    /** Plain copy in; publish it with a release write afterwards. */
    public void putBytes(int offset, byte[] source) {
        buffer.put(offset, source);
    }
}
