package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Reads and writes of a block's payload through its handle.
 *
 * <p>A read takes no lock: it checks the handle, copies, and checks it again after copying, so it
 * never returns bytes of a block freed meanwhile. A write checks the handle and writes under the
 * {@link AllocatorLock}: a free of the same block under the lock comes wholly before (the write is
 * refused: the handle is stale) or wholly after, and a cached free keeps the block's size (it is
 * reused only whole), so a late write can never land on a newer block's header or boundary tag. A
 * write killed mid-copy leaves its own block's payload half written (the block is still its
 * allocator's, to write again or free) and the lock to be taken over; nothing else.
 */
final class PayloadAccess {

    private static final VarHandle BYTES_AS_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final AtomicBuffer body;
    private final BlockValidator blocks;
    private final AllocatorLock lock;
    private final Path file;

    PayloadAccess(AtomicBuffer body, BlockValidator blocks, AllocatorLock lock, Path file) {
        this.body = body;
        this.blocks = blocks;
        this.lock = lock;
        this.file = file;
    }

    int sizeOf(long handle) {
        return blocks.payloadLength(blocks.checkedBlock(handle, "sizeOf"));
    }

    byte[] get(long handle) {
        int block = blocks.checkedBlock(handle, "get");
        byte[] bytes = new byte[blocks.payloadLength(block)];
        body.byteBuffer().get(block + PAYLOAD_OFFSET, bytes, 0, bytes.length);
        recheck(handle, block);
        return bytes;
    }

    void get(long handle, int offset, byte[] destination, int destinationOffset, int length) {
        int block = blocks.checkedRange(handle, offset, length, "get");
        Objects.checkFromIndexSize(destinationOffset, length, destination.length);
        body.byteBuffer()
                .get(block + PAYLOAD_OFFSET + offset, destination, destinationOffset, length);
        recheck(handle, block);
    }

    void get(long handle, int offset, ByteBuffer destination, int length) {
        int block = blocks.checkedRange(handle, offset, length, "get");
        ByteBuffer source = body.byteBuffer().slice(block + PAYLOAD_OFFSET + offset, length);
        destination.put(source);
        recheck(handle, block);
    }

    void set(long handle, int offset, byte[] source, int sourceOffset, int length) {
        Objects.checkFromIndexSize(sourceOffset, length, source.length);
        lock.lock();
        try {
            int block = blocks.checkedRange(handle, offset, length, "set");
            Interleaving.at(Point.REGION_SET_CHECKED);
            body.byteBuffer().put(block + PAYLOAD_OFFSET + offset, source, sourceOffset, length);
        } finally {
            lock.unlock(); // its release CAS publishes the bytes
        }
    }

    void set(long handle, int offset, ByteBuffer source) {
        int length = source.remaining();
        lock.lock();
        try {
            int block = blocks.checkedRange(handle, offset, length, "set");
            Interleaving.at(Point.REGION_SET_CHECKED);
            body.byteBuffer()
                    .put(block + PAYLOAD_OFFSET + offset, source, source.position(), length);
        } finally {
            lock.unlock();
        }
        source.position(source.position() + length);
    }

    /** Whether the payloads are equal: lengths, then 8 bytes at a time; allocation-free. */
    boolean equal(long a, long b) {
        int blockA = blocks.checkedBlock(a, "payloadEquals");
        int blockB = blocks.checkedBlock(b, "payloadEquals");
        int length = blocks.payloadLength(blockA);
        if (length != blocks.payloadLength(blockB)) {
            return false;
        }
        int pa = blockA + PAYLOAD_OFFSET;
        int pb = blockB + PAYLOAD_OFFSET;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            if (body.getLongPlain(pa + i) != body.getLongPlain(pb + i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (body.getByte(pa + i) != body.getByte(pb + i)) {
                return false;
            }
        }
        recheck(a, blockA);
        recheck(b, blockB);
        return true;
    }

    /** Whether the payload equals {@code other} from byte {@code from} on; allocation-free. */
    boolean equal(long handle, byte[] other, int from) {
        int block = blocks.checkedBlock(handle, "payloadEquals");
        int length = blocks.payloadLength(block);
        if (length != other.length || from < 0 || from > length) {
            return false;
        }
        int p = block + PAYLOAD_OFFSET;
        int i = from;
        for (; i + 8 <= length; i += 8) {
            if (body.getLongPlain(p + i) != (long) BYTES_AS_LONG.get(other, i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (body.getByte(p + i) != other[i]) {
                return false;
            }
        }
        recheck(handle, block);
        return true;
    }

    /** Refuses what was read from {@code block} if its handle's block was freed meanwhile. */
    private void recheck(long handle, int block) {
        Interleaving.at(Point.REGION_PAYLOAD_READ);
        VarHandle.acquireFence();
        if (generation(body.getLongAcquire(block + TAG_WORD)) != generation(handle)
                || !isUsed(body.getLongAcquire(block + SIZE_WORD))) {
            throw new IllegalArgumentException(
                    String.format(
                            "get refused in region %s: handle 0x%016x was freed while it was read",
                            file, handle));
        }
    }
}
