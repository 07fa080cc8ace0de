package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The heap's free list: address-ordered, doubly linked through the free blocks' tag words,
 * coalesced (never two free blocks adjacent), searched first fit, a block split from its end. It
 * changes only under the {@link AllocatorLock}, every method here is called holding it, and each
 * change is one step of the lock's intent:
 *
 * <ol>
 *   <li>plan: read the list, validate every offset and size against the heap ({@link
 *       BlockValidator}), and stage the new words as the intent's entries (nothing reachable is
 *       touched yet: a split allocation writes its new block's header in place, but inside the free
 *       block it splits, where no walk looks; a crash here leaves the heap as it was and the
 *       unsealed entries are void);
 *   <li>commit: seal the intent (one release store, the commit point), then write each word in
 *       place (a crash while applying is repaired by the next holder, who applies the same absolute
 *       words again before its own step).
 * </ol>
 */
final class FreeList {

    private static final long OWN_PID = Pids.current();
    private static final long OWN_START_TIME = OwnerRecord.startTimeOf(OWN_PID);

    private final AtomicBuffer body;
    private final AllocatorLock lock;
    private final BlockValidator blocks;
    private final Path file;
    private final int capacity;
    private final int heapEnd;

    FreeList(
            AtomicBuffer body, AllocatorLock lock, BlockValidator blocks, Path file, int capacity) {
        this.body = body;
        this.lock = lock;
        this.blocks = blocks;
        this.file = file;
        this.capacity = capacity;
        this.heapEnd = HEAP_OFFSET + capacity;
    }

    /**
     * A new heap: one free block of the whole capacity, the list's only block, and the salt that
     * mixes the generations (never 0).
     */
    static void initialise(AtomicBuffer body, int capacity) {
        long salt = new SecureRandom().nextLong();
        body.setLongPlain(SALT_OFFSET, salt == 0 ? 1 : salt);
        body.setLongPlain(HEAP_OFFSET + SIZE_WORD, sizeWord(capacity, false));
        body.setLongPlain(HEAP_OFFSET + TAG_WORD, link(0, 0));
        body.setLongPlain(HEAP_OFFSET + capacity - 8, sizeWord(capacity, false));
        body.setLongPlain(FREE_HEAD_OFFSET, HEAP_OFFSET);
    }

    /**
     * What an opened file's heap must satisfy before it is trusted: a list head inside the heap,
     * used bytes within it, a sound intent. The walks check the rest as they go.
     */
    static @Nullable String bodyProblem(AtomicBuffer body) {
        long heapEnd = body.capacity();
        long head = body.getLongAcquire(FREE_HEAD_OFFSET);
        if (head != 0
                && (head < HEAP_OFFSET || head > heapEnd - MIN_BLOCK || head % ALIGNMENT != 0)) {
            return "first free block at "
                    + head
                    + ", outside the heap ["
                    + HEAP_OFFSET
                    + ", "
                    + heapEnd
                    + ")";
        }
        long used = bytesOf(body.getLongAcquire(USED_OFFSET));
        if (used > heapEnd - HEAP_OFFSET) {
            return "used bytes " + used + ", more than the heap's " + (heapEnd - HEAP_OFFSET);
        }
        return IntentLock.intentProblem(body, LOCK_OFFSET, JOURNAL_CAPACITY);
    }

    /**
     * Allocates a block of {@code need} bytes for a payload of {@code size}, owned by this process,
     * from the first free block that fits.
     *
     * @return the block's handle
     * @throws CxcCapacityException if no free block fits
     */
    long allocate(int size, int need) {
        int previous = 0;
        int block = (int) body.getLongPlain(FREE_HEAD_OFFSET);
        int steps = 0;
        while (block != 0) {
            long sizeWord = blocks.checkedFreeBlock(block, previous);
            if (size(sizeWord) >= need) {
                break;
            }
            previous = block;
            block = next(body.getLongPlain(block + TAG_WORD));
            blocks.checkListLength(++steps);
        }
        if (block == 0) {
            throw new CxcCapacityException(
                    "region "
                            + file
                            + " has no free block of "
                            + need
                            + " bytes for "
                            + size
                            + " bytes: largest free block "
                            + largestFree()
                            + " bytes, free "
                            + (capacity - usedBytes())
                            + " of capacity "
                            + capacity
                            + " bytes. Free blocks (or reclaimDead()) or create a"
                            + " larger region");
        }
        long allocations = body.getLongPlain(ALLOCATIONS_OFFSET);
        long salt = body.getLongPlain(SALT_OFFSET);
        int generation;
        do {
            generation = generationOf(++allocations, salt);
        } while (generation == 0);
        int free = size(body.getLongPlain(block + SIZE_WORD));
        int used;
        if (free - need >= MIN_BLOCK) {
            // Split from the end: the free block keeps its place in the list. The new block's
            // header lies inside the free block, past its own header (rest >= MIN_BLOCK) and
            // before its tail: no walk reaches it until the step commits, so it is written in
            // place before the seal (ordered before it by the seal's release), not staged. A
            // crash before the seal leaves it as dead bytes inside a free block.
            int rest = free - need;
            used = block + rest;
            body.setLongPlain(used + SIZE_WORD, sizeWord(need, true));
            body.setLongPlain(used + TAG_WORD, tag(generation, OWN_PID));
            body.setLongPlain(used + META_WORD, meta(size, OWN_START_TIME));
            lock.stage(block + SIZE_WORD, sizeWord(rest, false));
            lock.stage(block + rest - 8, sizeWord(rest, false));
        } else {
            // Exact fit: the header is the free block's own, reachable: staged.
            need = free;
            used = block;
            long links = body.getLongPlain(block + TAG_WORD);
            unlink(previous(links), next(links));
            lock.stage(used + SIZE_WORD, sizeWord(need, true));
            lock.stage(used + TAG_WORD, tag(generation, OWN_PID));
            lock.stage(used + META_WORD, meta(size, OWN_START_TIME));
        }
        lock.stage(used + need - 8, sizeWord(need, true));
        lock.stage(ALLOCATIONS_OFFSET, allocations);
        long usedWord = body.getLongPlain(USED_OFFSET);
        lock.stage(USED_OFFSET, used(bytesOf(usedWord) + need, blocksOf(usedWord) + 1));
        lock.commit();
        return handle(generation, used);
    }

    /** Plans the removal of a free block between {@code previous} and {@code next}. */
    private void unlink(int previous, int next) {
        if (previous == 0) {
            lock.stage(FREE_HEAD_OFFSET, next);
        } else {
            lock.stage(
                    previous + TAG_WORD,
                    link(previous(body.getLongPlain(previous + TAG_WORD)), next));
        }
        if (next != 0) {
            lock.stage(next + TAG_WORD, link(previous, next(body.getLongPlain(next + TAG_WORD))));
        }
    }

    /**
     * Frees the used block at {@code block} (checked, and taken out of the allocated state by the
     * caller), coalescing it with its free neighbours.
     *
     * @return the start of the free block it became part of
     */
    int free(int block) {
        int size = size(body.getLongPlain(block + SIZE_WORD));
        int end = block + size;
        boolean nextFree = end < heapEnd && !isUsed(blocks.checkedBlockAt(end));
        int before = 0;
        if (block > HEAP_OFFSET) {
            long tail = body.getLongPlain(block - 8);
            int beforeSize = size(tail);
            before = block - beforeSize;
            if (beforeSize < MIN_BLOCK
                    || before < HEAP_OFFSET
                    || body.getLongPlain(before + SIZE_WORD) != tail) {
                throw blocks.corrupt(
                        "the boundary tag before block " + block + " does not match its block");
            }
            if (isUsed(tail)) {
                before = 0;
            }
        }
        int start;
        if (before != 0 && nextFree) {
            // before + block + next become one: next leaves the list.
            int nextSize = size(body.getLongPlain(end + SIZE_WORD));
            int merged = size(body.getLongPlain(before + SIZE_WORD)) + size + nextSize;
            long nextLinks = body.getLongPlain(end + TAG_WORD);
            long beforeLinks = body.getLongPlain(before + TAG_WORD);
            lock.stage(before + SIZE_WORD, sizeWord(merged, false));
            lock.stage(before + merged - 8, sizeWord(merged, false));
            // next directly follows before in address order, so it is before's list successor.
            lock.stage(before + TAG_WORD, link(previous(beforeLinks), next(nextLinks)));
            if (next(nextLinks) != 0) {
                int after = next(nextLinks);
                lock.stage(
                        after + TAG_WORD, link(before, next(body.getLongPlain(after + TAG_WORD))));
            }
            lock.stage(block + SIZE_WORD, 0);
            lock.stage(end + SIZE_WORD, 0);
            start = before;
        } else if (before != 0) {
            int merged = size(body.getLongPlain(before + SIZE_WORD)) + size;
            lock.stage(before + SIZE_WORD, sizeWord(merged, false));
            lock.stage(before + merged - 8, sizeWord(merged, false));
            lock.stage(block + SIZE_WORD, 0);
            start = before;
        } else if (nextFree) {
            // block takes next's place in the list.
            int merged = size + size(body.getLongPlain(end + SIZE_WORD));
            long nextLinks = body.getLongPlain(end + TAG_WORD);
            lock.stage(block + SIZE_WORD, sizeWord(merged, false));
            lock.stage(block + TAG_WORD, nextLinks);
            lock.stage(block + META_WORD, 0);
            lock.stage(block + merged - 8, sizeWord(merged, false));
            if (previous(nextLinks) == 0) {
                lock.stage(FREE_HEAD_OFFSET, block);
            } else {
                int p = previous(nextLinks);
                lock.stage(p + TAG_WORD, link(previous(body.getLongPlain(p + TAG_WORD)), block));
            }
            if (next(nextLinks) != 0) {
                int n = next(nextLinks);
                lock.stage(n + TAG_WORD, link(block, next(body.getLongPlain(n + TAG_WORD))));
            }
            lock.stage(end + SIZE_WORD, 0);
            start = block;
        } else {
            // Between two used blocks: into the list after the last free block before it.
            int previous = 0;
            int successor = (int) body.getLongPlain(FREE_HEAD_OFFSET);
            int steps = 0;
            while (successor != 0 && successor < block) {
                blocks.checkedFreeBlock(successor, previous);
                previous = successor;
                successor = next(body.getLongPlain(successor + TAG_WORD));
                blocks.checkListLength(++steps);
            }
            lock.stage(block + SIZE_WORD, sizeWord(size, false));
            lock.stage(block + TAG_WORD, link(previous, successor));
            lock.stage(block + META_WORD, 0);
            lock.stage(block + size - 8, sizeWord(size, false));
            if (previous == 0) {
                lock.stage(FREE_HEAD_OFFSET, block);
            } else {
                lock.stage(
                        previous + TAG_WORD,
                        link(previous(body.getLongPlain(previous + TAG_WORD)), block));
            }
            if (successor != 0) {
                lock.stage(
                        successor + TAG_WORD,
                        link(block, next(body.getLongPlain(successor + TAG_WORD))));
            }
            start = block;
        }
        long usedWord = body.getLongPlain(USED_OFFSET);
        lock.stage(USED_OFFSET, used(bytesOf(usedWord) - size, blocksOf(usedWord) - 1));
        lock.commit();
        return start;
    }

    /** The largest free block's size in bytes (no order check: the walk's bound stops a cycle). */
    int largestFree() {
        int largest = 0;
        int steps = 0;
        for (int block = (int) body.getLongPlain(FREE_HEAD_OFFSET); block != 0; ) {
            largest = Math.max(largest, size(blocks.checkedFreeBlock(block, 0)));
            block = next(body.getLongPlain(block + TAG_WORD));
            blocks.checkListLength(++steps);
        }
        return largest;
    }

    /** The free blocks' offsets in list order, each checked in address order. */
    List<Integer> offsets() {
        List<Integer> list = new ArrayList<>();
        int previous = 0;
        for (int block = (int) body.getLongPlain(FREE_HEAD_OFFSET); block != 0; ) {
            blocks.checkedFreeBlock(block, previous);
            list.add(block);
            blocks.checkListLength(list.size());
            previous = block;
            block = next(body.getLongPlain(block + TAG_WORD));
        }
        return list;
    }

    private long usedBytes() {
        return bytesOf(body.getLongPlain(USED_OFFSET));
    }
}
