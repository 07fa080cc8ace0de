package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Who a block belongs to, told by its tag word: the allocating PID beside the generation (0 once
 * disowned), the allocator's start time in the meta word. Every change of owner is one CAS of the
 * tag from exactly the word read or judged, so two claims of one block (two frees of one handle in
 * two processes, one of them cached; a free and a disown; a reclaim and a live process's cached
 * free) never both win: a loser changes nothing and is told why.
 */
final class BlockOwners {

    private static final long OWN_PID = Pids.current();

    private final AtomicBuffer body;
    private final BlockValidator blocks;
    private final FreeList freeList;
    private final AllocatorLock lock;
    private final Path file;
    private final int heapEnd;

    BlockOwners(
            AtomicBuffer body,
            BlockValidator blocks,
            FreeList freeList,
            AllocatorLock lock,
            Path file,
            int capacity) {
        this.body = body;
        this.blocks = blocks;
        this.freeList = freeList;
        this.lock = lock;
        this.file = file;
        this.heapEnd = HEAP_OFFSET + capacity;
    }

    /**
     * Takes the checked block of {@code handle} out of the allocated state before a step frees it:
     * a CAS of its tag word from the handle's generation to (0, this PID), so that a cached free of
     * the same handle elsewhere cannot take it too. A crash before the step commits leaves it
     * tagged with this dead PID, for {@link #reclaimDead()}.
     */
    void take(long handle, int block, String operation) {
        long tag = body.getLongAcquire(block + TAG_WORD);
        if (generation(tag) != generation(handle)
                || !body.compareAndSetLong(block + TAG_WORD, tag, tag(0, OWN_PID))) {
            String problem = blocks.problem(handle);
            throw blocks.refused(
                    operation,
                    problem != null
                            ? problem
                            : String.format(
                                    "handle 0x%016x was freed already by another process"
                                            + " (a double free)",
                                    handle));
        }
    }

    /**
     * Frees every used block whose owner is dead (gone, a zombie, or its PID reused), under the
     * lock.
     *
     * @return the bytes freed (block sizes)
     */
    long reclaimDead() {
        lock.lock();
        long freed = 0;
        try {
            Map<Long, Boolean> dead = new HashMap<>();
            int block = HEAP_OFFSET;
            while (block < heapEnd) {
                long sizeWord = blocks.checkedBlockAt(block);
                int size = size(sizeWord);
                if (isUsed(sizeWord)) {
                    long tag = body.getLongPlain(block + TAG_WORD);
                    long pid = pid(tag);
                    long metaWord = body.getLongPlain(block + META_WORD);
                    // Generation 0 without the mark: half-way into or out of a cache (or taken by
                    // a free killed before its step), the start time not yet (or no longer) its.
                    long startTime =
                            generation(tag) == 0 && !isCachedMeta(metaWord)
                                    ? ProcessProbe.UNKNOWN_START_TIME
                                    : startTime(metaWord);
                    if (pid != 0
                            && dead.computeIfAbsent(
                                    (startTime << 32) | pid,
                                    k -> ProcessProbe.status(pid, startTime) == ProcessStatus.DEAD)
                            // From the word judged: a live process's cached free of a dead
                            // process's block, meanwhile, keeps it.
                            && body.compareAndSetLong(block + TAG_WORD, tag, tag(0, OWN_PID))) {
                        freed += size;
                        block = freeList.free(block);
                        continue;
                    }
                }
                block += size;
            }
            return freed;
        } finally {
            lock.unlock();
        }
    }

    /** Makes the block of {@code handle} nobody's: only an explicit free frees it then. */
    void disown(long handle) {
        int block = blocks.checkedBlock(handle, "disown");
        Interleaving.at(Point.REGION_HANDLE_CHECKED);
        long tag = body.getLongAcquire(block + TAG_WORD);
        // One word, by CAS from the generation checked: a free (cached or not) meanwhile wins.
        if (generation(tag) != generation(handle)
                || !body.compareAndSetLong(block + TAG_WORD, tag, tag(generation(handle), 0))) {
            blocks.checkedBlock(handle, "disown");
            throw new IllegalArgumentException(
                    String.format(
                            "disown refused in region %s: handle 0x%016x was freed meanwhile",
                            file, handle));
        }
    }

    /** The PID that allocated {@code handle}'s block; 0 once disowned. */
    long ownerOf(long handle) {
        int block = blocks.checkedBlock(handle, "ownerOf");
        return pid(body.getLongAcquire(block + TAG_WORD));
    }
}
