package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.region.SharedRegion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Random;

/**
 * Holds up to {@link #HELD} blocks of random sizes (some small enough for the free cache), each
 * stamped with its handle and this worker, checks a block still holds its stamp before freeing it,
 * and now and then reclaims the blocks of dead processes. A block that lost its stamp, or a handle
 * the region refuses while this worker still holds it, is logged as {@code foreign}: the block was
 * given to someone else.
 */
final class RegionLoad implements Load {

    static final int HELD = 8;
    static final int MAX_SIZE = 300;

    private final SharedRegion region;
    private final History history;
    private final Deque<long[]> held = new ArrayDeque<>(); // handle, size, stamped (0/1)

    RegionLoad(SharedRegion region, History history) {
        this.region = region;
        this.history = history;
    }

    @Override
    public Family family() {
        return Family.REGION;
    }

    static byte[] stamp(long handle, int worker, int size) {
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        long mark = handle * 31 + worker;
        while (b.remaining() >= 8) {
            b.putLong(mark);
            mark = Long.rotateLeft(mark, 7) + 1;
        }
        while (b.hasRemaining()) {
            b.put((byte) mark);
        }
        return b.array();
    }

    @Override
    public void step(Random random) {
        double dice = random.nextDouble();
        if (dice < 0.05) {
            history.log(Family.REGION, "reclaim-begin");
            long bytes = region.reclaimDead();
            history.log(Family.REGION, "reclaimed", bytes);
        } else if (held.size() < HELD && (held.isEmpty() || dice < 0.55)) {
            int size = 1 + random.nextInt(MAX_SIZE);
            history.log(Family.REGION, "alloc-begin", size);
            long handle = region.allocate(size);
            history.log(Family.REGION, "allocated", handle, size);
            long[] block = {handle, size, 0};
            held.addLast(block);
            try {
                region.set(handle, stamp(handle, history.worker(), size));
            } catch (IllegalArgumentException refused) {
                history.log(Family.REGION, "foreign", handle, "set-refused");
                held.remove(block);
                return;
            }
            block[2] = 1; // a set that timed out (a stopped lock holder) leaves it unstamped
        } else {
            long[] block = held.pollFirst();
            long handle = block[0];
            int size = (int) block[1];
            try {
                byte[] now = region.get(handle);
                if (block[2] == 1 && !Arrays.equals(now, stamp(handle, history.worker(), size))) {
                    history.log(Family.REGION, "foreign", handle, "stamp-changed");
                }
            } catch (IllegalArgumentException refused) {
                history.log(Family.REGION, "foreign", handle, "get-refused");
                return;
            }
            history.log(Family.REGION, "free-begin", handle);
            try {
                region.free(handle);
            } catch (IllegalArgumentException refused) {
                history.log(Family.REGION, "foreign", handle, "free-refused");
                return;
            } catch (RuntimeException timedOut) {
                held.addFirst(block); // not freed (a stopped lock holder): ours still
                throw timedOut;
            }
            history.log(Family.REGION, "freed", handle);
        }
    }
}
