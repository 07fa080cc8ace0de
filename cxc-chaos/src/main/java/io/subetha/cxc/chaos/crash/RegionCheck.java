package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.region.SharedRegionDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The region's promise ({@code SharedRegion}): a SIGKILL at any point leaves the heap whole, a
 * block is its allocator's until freed (only {@code reclaimDead} frees another's, and only a dead
 * one's), and a handle is refused once its block was freed. So: no worker found its block's stamp
 * changed or its handle refused while it held it ({@code foreign}); no handle was handed out twice;
 * no two blocks held at once overlap (a block is held from its allocation's return to its free's
 * start or its holder's kill); and after the dead are reclaimed nothing is used and the heap is one
 * free block again.
 */
final class RegionCheck {

    private RegionCheck() {}

    private record Held(int worker, long handle, long from, long to, long offset, long bytes) {}

    static void check(Evidence evidence, Findings out) {
        Family r = Family.REGION;
        Map<Integer, Long> killedAt = evidence.killedAt();
        Map<Long, HistoryLine> allocated = new HashMap<>();
        Map<Long, Long> freeBegun = new HashMap<>();
        long frees = 0;
        long reclaimedBytes = 0;
        for (HistoryLine l : evidence.lines(r)) {
            switch (l.op()) {
                case "allocated" -> {
                    HistoryLine before = allocated.put(l.longField(0), l);
                    if (before != null) {
                        out.violation(
                                r,
                                String.format(
                                        "handle 0x%x handed out twice, to workers %d and %d",
                                        l.longField(0), before.worker(), l.worker()));
                    }
                }
                case "free-begin" -> freeBegun.putIfAbsent(l.longField(0), l.nanos());
                case "freed" -> frees++;
                case "reclaimed" -> reclaimedBytes += l.longField(0);
                case "foreign" ->
                        out.violation(
                                r,
                                String.format(
                                        "worker %d's block 0x%x was taken while it held it (%s)",
                                        l.worker(), l.longField(0), l.field(1)));
                default -> {}
            }
        }
        List<Held> held = new ArrayList<>();
        allocated.forEach(
                (handle, l) ->
                        held.add(
                                new Held(
                                        l.worker(),
                                        handle,
                                        l.nanos(),
                                        Math.min(
                                                freeBegun.getOrDefault(handle, Long.MAX_VALUE),
                                                killedAt.getOrDefault(l.worker(), Long.MAX_VALUE)),
                                        SharedRegionDescriptor.offset(handle),
                                        SharedRegionDescriptor.PAYLOAD_OFFSET + l.longField(1))));
        checkOverlaps(held, out);
        FileFacts f = evidence.facts();
        if (f.regionUsedBlocks() != 0
                || f.regionUsedBytes() != 0
                || f.regionFreeBlocks() != 1
                || f.regionLargestFree() != f.regionCapacity()) {
            out.violation(
                    r,
                    "after the dead were reclaimed: "
                            + f.regionUsedBlocks()
                            + " blocks ("
                            + f.regionUsedBytes()
                            + " bytes) still used, "
                            + f.regionFreeBlocks()
                            + " free blocks, the largest "
                            + f.regionLargestFree()
                            + " of "
                            + f.regionCapacity()
                            + " bytes");
        }
        out.figure(r, "allocated", allocated.size());
        out.figure(r, "freed", frees);
        out.figure(r, "reclaimedBytes", reclaimedBytes);
    }

    /** A sweep in time: each block, as it is taken, against the blocks held at that moment. */
    private static void checkOverlaps(List<Held> held, Findings out) {
        held.sort(Comparator.comparingLong(Held::from));
        PriorityQueue<Held> byEnd = new PriorityQueue<>(Comparator.comparingLong(Held::to));
        TreeMap<Long, Held> byOffset = new TreeMap<>();
        for (Held h : held) {
            while (!byEnd.isEmpty() && byEnd.peek().to() <= h.from()) {
                Held gone = byEnd.poll();
                byOffset.remove(gone.offset(), gone);
            }
            reportOverlap(h, byOffset.floorEntry(h.offset()), out);
            reportOverlap(h, byOffset.ceilingEntry(h.offset()), out);
            byOffset.put(h.offset(), h);
            byEnd.add(h);
        }
    }

    private static void reportOverlap(Held h, Map.@Nullable Entry<Long, Held> near, Findings out) {
        if (near == null) {
            return;
        }
        Held other = near.getValue();
        if (other.offset() < h.offset() + h.bytes()
                && h.offset() < other.offset() + other.bytes()) {
            out.violation(
                    Family.REGION,
                    String.format(
                            "block 0x%x (worker %d) overlaps block 0x%x (worker %d), held at the"
                                    + " same time",
                            h.handle(), h.worker(), other.handle(), other.worker()));
        }
    }
}
