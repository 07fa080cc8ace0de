package io.subetha.cxc.resolution;

import io.subetha.cxc.observe.OpCounters;
import io.subetha.cxc.observe.OpKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * K resolver levels walked in order; the first level that answers short-circuits the rest, and its
 * answer fills every level above it. The usual tower, from fast and small to slow and complete:
 *
 * <pre>{@code
 * KTowerCascade<Long, Price> prices = KTowerCascade.<Long, Price>builder()
 *         .level(new BoundedLevel<>("memory", 10_000))
 *         .level(CascadeSharedLevel.openOrCreate(
 *                 path, new CascadeSharedLevel.Settings<>(65_536, FixedCodec.INT64, PRICE)))
 *         .level(new LoaderLevel<>("database", id -> repository.findPrice(id)))
 *         .build();
 * Optional<Price> p = prices.get(42L);
 * }</pre>
 *
 * A value one process loads lands in the shared level, where every other process finds it without
 * calling its own loader. The cascade itself is an in-process composition: it has no file, and its
 * levels keep their own guarantees (see each). Thread-safe if its levels are.
 */
public final class KTowerCascade<K, V> {

    /** The ops a cascade counts. */
    public enum Op implements OpKind {
        INSERT(1),
        GET(2);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** The most levels a cascade takes. */
    public static final int MAX_LEVELS = 16;

    private final CascadeLevel<K, V>[] levels;
    private final LongAdder[] hits;
    private final LongAdder[] misses;
    private final OpCounters counters = OpCounters.of(Op.class);

    @SuppressWarnings("unchecked")
    private KTowerCascade(List<CascadeLevel<K, V>> levels) {
        this.levels = levels.toArray(new CascadeLevel[0]);
        this.hits = new LongAdder[levels.size()];
        this.misses = new LongAdder[levels.size()];
        for (int i = 0; i < levels.size(); i++) {
            hits[i] = new LongAdder();
            misses[i] = new LongAdder();
        }
    }

    public static <K, V> Builder<K, V> builder() {
        return new Builder<>();
    }

    /**
     * Walks the levels in order and returns the first answer, after putting it into every level
     * above the one that answered; empty if none did.
     */
    public Optional<V> get(K key) {
        Objects.requireNonNull(key, "key");
        counters.increment(Op.GET);
        for (int i = 0; i < levels.length; i++) {
            V value = levels[i].get(key);
            if (value != null) {
                hits[i].increment();
                for (int above = i - 1; above >= 0; above--) {
                    levels[above].put(key, value);
                }
                return Optional.of(value);
            }
            misses[i].increment();
        }
        return Optional.empty();
    }

    /** Puts {@code value} into every level, bottom first (a loader level ignores it). */
    public void insert(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        counters.increment(Op.INSERT);
        for (int i = levels.length - 1; i >= 0; i--) {
            levels[i].put(key, value);
        }
    }

    /** Hits and misses per level, counted by this process. */
    public CascadeStats stats() {
        List<CascadeStats.Level> list = new ArrayList<>(levels.length);
        for (int i = 0; i < levels.length; i++) {
            list.add(new CascadeStats.Level(levels[i].name(), hits[i].sum(), misses[i].sum()));
        }
        return new CascadeStats(list);
    }

    /** The levels, top first. */
    public List<CascadeLevel<K, V>> levels() {
        return List.of(levels);
    }

    /** Ops counted by this process: {@code insert} and {@code get}. */
    public Map<String, Long> opCounts() {
        return counters.snapshot();
    }

    /** Collects the levels of a cascade, top (fastest) first. */
    public static final class Builder<K, V> {
        private final List<CascadeLevel<K, V>> levels = new ArrayList<>();

        private Builder() {}

        public Builder<K, V> level(CascadeLevel<K, V> level) {
            Objects.requireNonNull(level, "level");
            if (levels.size() == MAX_LEVELS) {
                throw new IllegalArgumentException(
                        "a cascade takes at most " + MAX_LEVELS + " levels (MAX_LEVELS)");
            }
            levels.add(level);
            return this;
        }

        /**
         * @throws IllegalArgumentException if no level was given
         */
        public KTowerCascade<K, V> build() {
            if (levels.isEmpty()) {
                throw new IllegalArgumentException("a cascade needs at least one level, got 0");
            }
            return new KTowerCascade<>(levels);
        }
    }
}
