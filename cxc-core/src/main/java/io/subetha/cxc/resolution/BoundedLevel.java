package io.subetha.cxc.resolution;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;

/**
 * A bounded cache in this process's memory, the top of a cascade: a concurrent hash map of at most
 * {@code maxEntries} entries. When a new key would exceed the bound, the key inserted longest ago
 * is evicted (FIFO by first insertion: a hit never reorders, so a get is one map lookup and writes
 * nothing). The bound may be overshot by the number of threads putting at the same instant, never
 * for longer.
 */
public final class BoundedLevel<K, V> implements CascadeLevel<K, V> {

    /** The largest bound: beyond it a mapped-file level is the better cache. */
    public static final int MAX_ENTRIES = 1 << 26;

    private final String name;
    private final int maxEntries;
    private final ConcurrentHashMap<K, V> map;
    private final ConcurrentLinkedQueue<K> insertionOrder = new ConcurrentLinkedQueue<>();

    /**
     * @throws IllegalArgumentException if {@code maxEntries} is outside 1..{@link #MAX_ENTRIES}
     */
    public BoundedLevel(String name, int maxEntries) {
        this.name = Objects.requireNonNull(name, "name");
        if (maxEntries < 1 || maxEntries > MAX_ENTRIES) {
            throw new IllegalArgumentException(
                    "maxEntries must be 1.." + MAX_ENTRIES + " (MAX_ENTRIES), got " + maxEntries);
        }
        this.maxEntries = maxEntries;
        this.map = new ConcurrentHashMap<>(Math.min(maxEntries, 1 << 16));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public @Nullable V get(K key) {
        return map.get(key);
    }

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(value, "value");
        if (map.put(key, value) == null) {
            insertionOrder.offer(key);
            while (map.size() > maxEntries) {
                K oldest = insertionOrder.poll();
                if (oldest == null) {
                    break;
                }
                map.remove(oldest);
            }
        }
    }

    /** Removes {@code key} from this level. */
    public void invalidate(K key) {
        if (map.remove(key) != null) {
            insertionOrder.remove(key);
        }
    }

    public int size() {
        return map.size();
    }

    public int maxEntries() {
        return maxEntries;
    }
}
