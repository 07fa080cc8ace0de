package io.subetha.cxc.resolution;

import org.jspecify.annotations.Nullable;

/**
 * One resolver level of a {@link KTowerCascade}: answers a key or says it has nothing, and takes
 * values that a lower level found (a cache fills itself from below) or that the cascade inserts.
 * Shipped levels: {@link BoundedLevel} (this process's memory), {@link CascadeSharedLevel} (a
 * mapped file every process on the host shares) and {@link LoaderLevel} (a user function, e.g. a
 * database call).
 */
public interface CascadeLevel<K, V> {

    /** A short name for statistics: "memory", "shared", "database". */
    String name();

    /** The value this level holds for {@code key}, or null if it has none. */
    @Nullable V get(K key);

    /**
     * Stores {@code value} for {@code key}, or drops it where the level cannot or need not store (a
     * loader; a cache whose slots are all being written): a cascade's levels are caches, and a
     * dropped fill only costs a later miss.
     */
    void put(K key, V value);
}
