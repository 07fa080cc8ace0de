package io.subetha.cxc.resolution;

import java.util.List;

/**
 * Hits and misses per level of a {@link KTowerCascade}, in level order, counted by this process
 * since the cascade was built. A get that misses at level i was asked of every level above it too.
 */
public record CascadeStats(List<Level> levels) {

    /** One level's counts. */
    public record Level(String name, long hits, long misses) {}

    public CascadeStats {
        levels = List.copyOf(levels);
    }

    /** Gets that no level answered. */
    public long misses() {
        return levels.isEmpty() ? 0 : levels.get(levels.size() - 1).misses();
    }
}
