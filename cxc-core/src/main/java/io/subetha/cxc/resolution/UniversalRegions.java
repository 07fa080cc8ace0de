package io.subetha.cxc.resolution;

import static io.subetha.cxc.resolution.UniversalDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The two key regions of a {@link SharedUniversal}'s body and how a key is found in them: a sorted
 * array searched by binary search, or a hash table probed linearly from the key's home slot. Keys
 * are compared and hashed by their padded words, so they are equal exactly when their codec's bytes
 * are. Reads here are plain: a reader proves what it read by the set's version around it, a writer
 * holds the lock. Layout: {@link UniversalDescriptor}.
 */
final class UniversalRegions {

    private final AtomicBuffer body;
    private final Path file;
    private final int capacity;
    private final int stride;
    private final int keyPadded;
    private final int tableSize;

    UniversalRegions(AtomicBuffer body, Path file, int capacity, int stride) {
        this.body = body;
        this.file = file;
        this.capacity = capacity;
        this.stride = stride;
        this.keyPadded = stride - 8;
        this.tableSize = UniversalDescriptor.tableSize(capacity);
    }

    int stride() {
        return stride;
    }

    int keyPadded() {
        return keyPadded;
    }

    int tableSize() {
        return tableSize;
    }

    /** The body offset of region {@code region} (0 or 1). */
    int offset(int region) {
        return regionOffset(stride, region, tableSize);
    }

    /** The body offset of the region {@code layout} names active. */
    int active(long layout) {
        return offset(region(layout));
    }

    static boolean isSorted(long layout) {
        return UniversalDescriptor.representation(layout)
                == SharedUniversal.Representation.SORTED_ARRAY.ordinal();
    }

    // ------------------------------------------------------------------------------ searching

    /** The slot index holding the key at {@code k}/{@code kOffset} in the active region, or -1. */
    int findIn(long layout, long count, AtomicBuffer k, int kOffset, long hash) {
        int region = offset(region(layout) & 1);
        if (isSorted(layout)) {
            if (count < 0 || count > capacity) {
                throw new IllegalStateException("count " + count + " outside 0.." + capacity);
            }
            int low = 0;
            int high = (int) count - 1;
            while (low <= high) {
                int mid = (low + high) >>> 1;
                int c = compare(region + mid * stride + 8, k, kOffset);
                if (c < 0) {
                    low = mid + 1;
                } else if (c > 0) {
                    high = mid - 1;
                } else {
                    return mid;
                }
            }
            return -1;
        }
        if (UniversalDescriptor.representation(layout)
                != SharedUniversal.Representation.HASH.ordinal()) {
            throw new IllegalStateException(
                    "representation " + UniversalDescriptor.representation(layout));
        }
        return findHash(region, k, kOffset, hash);
    }

    int findHash(int region, AtomicBuffer k, int kOffset, long hash) {
        int index = home(hash);
        for (int probe = 0; probe < tableSize; probe++) {
            int slot = region + index * stride;
            long state = body.getLongPlain(slot);
            if (state == EMPTY) {
                return -1;
            }
            if (state == FULL && compare(slot + 8, k, kOffset) == 0) {
                return index;
            }
            index = next(index);
        }
        return -1;
    }

    int insertionPoint(int region, int count, AtomicBuffer k, int kOffset) {
        int low = 0;
        int high = count - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (compare(region + mid * stride + 8, k, kOffset) < 0) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    /**
     * What is wrong with the active region's structure, or null if it is sound: the count within
     * bounds, a sorted array strictly ascending, a hash region's full slots as many as the count,
     * each reachable from its home slot. The caller holds the lock.
     */
    @Nullable String inconsistency(long layout, long count) {
        if (count < 0 || count > capacity) {
            return "count " + count + " outside 0.." + capacity;
        }
        int region = active(layout);
        if (isSorted(layout)) {
            for (int i = 1; i < count; i++) {
                if (compare(region + (i - 1) * stride + 8, body, region + i * stride + 8) >= 0) {
                    return "sorted array out of order at " + i;
                }
            }
            return null;
        }
        int full = 0;
        for (int i = 0; i < tableSize; i++) {
            int slot = region + i * stride;
            if (body.getLongPlain(slot) == FULL) {
                full++;
                long hash = hashAt(slot + 8);
                if (findHash(region, body, slot + 8, hash) != i) {
                    return "slot " + i + " unreachable from its home, or its key twice";
                }
            }
        }
        return full == count ? null : "full slots " + full + " but count " + count;
    }

    // -------------------------------------------------------------------------------- bounds

    /** The count, bounded by the capacity before it is used as an index. */
    int boundedCount() {
        return (int) bounded(body.getLongPlain(COUNT_OFFSET), capacity, "count");
    }

    long bounded(long value, long max, String what) {
        if (value < 0 || value > max) {
            throw corrupt(what + " " + value + " outside 0.." + max);
        }
        return value;
    }

    CxcFormatException corrupt(String problem) {
        return new CxcFormatException(
                "the universal set "
                        + file
                        + " is corrupt: "
                        + problem
                        + ". Nothing was changed; recreate the file.");
    }

    // ------------------------------------------------------------------------------- hashing

    long hash(AtomicBuffer k, int offset) {
        long h = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < keyPadded; i += 8) {
            h = mix(h, k.getLongPlain(offset + i));
        }
        return finish(h);
    }

    long hashAt(int bodyOffset) {
        return hash(body, bodyOffset);
    }

    long hashWords(long[] words, int key) {
        int per = keyPadded / 8;
        long h = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < per; i++) {
            h = mix(h, words[key * per + i]);
        }
        return finish(h);
    }

    int home(long hash) {
        return (int) (((hash >>> 32) * tableSize) >>> 32);
    }

    int next(int index) {
        return index + 1 == tableSize ? 0 : index + 1;
    }

    private static long mix(long h, long word) {
        h = (h ^ word) * 0xBF58476D1CE4E5B9L;
        return h ^ (h >>> 31);
    }

    private static long finish(long h) {
        h = (h ^ (h >>> 30)) * 0x94D049BB133111EBL;
        return h ^ (h >>> 29);
    }

    // ----------------------------------------------------------------------- comparing, copying

    /** Key-byte order: unsigned, word by word. */
    private int compare(int bodyOffset, AtomicBuffer k, int kOffset) {
        for (int i = 0; i < keyPadded; i += 8) {
            long a = body.getLongPlain(bodyOffset + i);
            long b = k.getLongPlain(kOffset + i);
            if (a != b) {
                return Long.compareUnsigned(a, b);
            }
        }
        return 0;
    }

    int compareWords(long[] words, int a, int b) {
        int per = keyPadded / 8;
        for (int i = 0; i < per; i++) {
            long x = words[a * per + i];
            long y = words[b * per + i];
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        return 0;
    }

    void copySlot(int from, int to) {
        for (int i = 0; i < stride; i += 8) {
            body.setLongPlain(to + i, body.getLongPlain(from + i));
        }
    }

    /** Copies the padded key at body offset {@code from} to {@code keyOffset}. */
    void copyKey(int from, int keyOffset) {
        for (int i = 0; i < keyPadded; i += 8) {
            body.setLongPlain(keyOffset + i, body.getLongPlain(from + i));
        }
    }

    void readKey(int keyOffset, long[] words, int key) {
        int per = keyPadded / 8;
        for (int i = 0; i < per; i++) {
            words[key * per + i] = body.getLongPlain(keyOffset + 8 * i);
        }
    }

    void writeKey(long[] words, int key, int keyOffset) {
        int per = keyPadded / 8;
        for (int i = 0; i < per; i++) {
            body.setLongPlain(keyOffset + 8 * i, words[key * per + i]);
        }
    }
}
