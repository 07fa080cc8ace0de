package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Checks what the heap says before the region trusts it. Another process may have written any word
 * of the file (or died half-way), so a block's offset, size word and boundary tag are checked
 * before a walk follows them, a free list's link before it is taken, and a handle against its
 * block's header before the payload is used. A damaged structure is a {@link CxcFormatException}
 * (the heap cannot be trusted: recreate it); a handle that names no allocated block is an {@link
 * IllegalArgumentException} naming the operation, and nothing is changed.
 */
final class BlockValidator {

    private final AtomicBuffer body;
    private final Path file;
    private final int heapEnd;
    private final int maxListLength;

    BlockValidator(AtomicBuffer body, Path file, int capacity) {
        this.body = body;
        this.file = file;
        this.heapEnd = HEAP_OFFSET + capacity;
        // Every free block is at least MIN_BLOCK bytes: a longer walk has met a cycle.
        this.maxListLength = capacity / MIN_BLOCK;
    }

    /** Whether a block of at least the smallest size could start at {@code offset}. */
    boolean inHeap(long offset) {
        return offset >= HEAP_OFFSET && offset <= heapEnd - MIN_BLOCK && offset % ALIGNMENT == 0;
    }

    /** The size word of the block at {@code block}, after checking its bounds and boundary tag. */
    long checkedBlockAt(int block) {
        if (!inHeap(block)) {
            throw corrupt(
                    "a block at offset "
                            + block
                            + ", outside the heap ["
                            + HEAP_OFFSET
                            + ", "
                            + heapEnd
                            + ")");
        }
        long sizeWord = body.getLongPlain(block + SIZE_WORD);
        int size = size(sizeWord);
        if (size < MIN_BLOCK
                || size % ALIGNMENT != 0
                || size > heapEnd - block
                || body.getLongPlain(block + size - 8) != sizeWord) {
            throw corrupt(
                    "the block at offset "
                            + block
                            + " has size word 0x"
                            + Long.toHexString(sizeWord)
                            + " and a boundary tag that does not match");
        }
        return sizeWord;
    }

    /** {@link #checkedBlockAt} for a block the free list names after {@code previous}. */
    long checkedFreeBlock(int block, int previous) {
        long sizeWord = checkedBlockAt(block);
        if (isUsed(sizeWord) || block <= previous) {
            throw corrupt(
                    "the free list names block "
                            + block
                            + " after "
                            + previous
                            + (isUsed(sizeWord) ? ", a used block" : ", out of address order"));
        }
        return sizeWord;
    }

    /** Refuses a walk of the free list that has taken {@code steps} links: more than any heap's. */
    void checkListLength(int steps) {
        if (steps > maxListLength) {
            throw corrupt("the free list has a cycle");
        }
    }

    CxcFormatException corrupt(String problem) {
        return new CxcFormatException(
                "region "
                        + file
                        + " is corrupt: "
                        + problem
                        + ". Its blocks cannot be trusted; recreate the region");
    }

    /** Null if {@code handle} names an allocated block now, else why not. */
    @Nullable String problem(long handle) {
        long offset = offset(handle);
        if (handle == 0) {
            return "handle 0 is not a handle (allocate never returns 0)";
        }
        if (!inHeap(offset)) {
            return String.format(
                    "handle 0x%016x names offset %d, outside this region's heap [%d, %d) or not"
                            + " %d-aligned: a handle of another region, or not a handle",
                    handle, offset, HEAP_OFFSET, heapEnd, ALIGNMENT);
        }
        int block = (int) offset;
        long sizeWord = body.getLongAcquire(block + SIZE_WORD);
        long tag = body.getLongAcquire(block + TAG_WORD);
        int size = size(sizeWord);
        if (!isUsed(sizeWord)
                || size < MIN_BLOCK
                || size > heapEnd - block
                || generation(tag) == 0) {
            return String.format(
                    "handle 0x%016x names no allocated block: it was freed already (a double free"
                            + " or a stale handle), or it is another region's",
                    handle);
        }
        if (generation(tag) != generation(handle)) {
            return String.format(
                    "handle 0x%016x is stale: the block at offset %d now has generation 0x%08x,"
                            + " the handle 0x%08x (it was freed and allocated again, or the handle"
                            + " is another region's)",
                    handle, offset, generation(tag), generation(handle));
        }
        return null;
    }

    /** The block {@code handle} names, checked; else refuses {@code operation} saying why. */
    int checkedBlock(long handle, String operation) {
        String problem = problem(handle);
        if (problem != null) {
            throw refused(operation, problem);
        }
        return (int) offset(handle);
    }

    /** {@link #checkedBlock}, and {@code length} bytes at {@code offset} inside its payload. */
    int checkedRange(long handle, int offset, int length, String operation) {
        int block = checkedBlock(handle, operation);
        int payload = payloadLength(block);
        if (offset < 0 || length < 0 || offset > payload - length) {
            throw new IllegalArgumentException(
                    operation
                            + " of "
                            + length
                            + " bytes at offset "
                            + offset
                            + " is outside the block's payload of "
                            + payload
                            + " bytes");
        }
        return block;
    }

    /** The block's payload length, never past its end (the file may say otherwise). */
    int payloadLength(int block) {
        int length = length(body.getLongAcquire(block + META_WORD));
        int room = size(body.getLongAcquire(block + SIZE_WORD)) - OVERHEAD;
        return Math.max(0, Math.min(length, room));
    }

    IllegalArgumentException refused(String operation, String problem) {
        return new IllegalArgumentException(
                operation + " refused in region " + file + ": " + problem);
    }
}
