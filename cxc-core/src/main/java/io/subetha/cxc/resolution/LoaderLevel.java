package io.subetha.cxc.resolution;

import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The slow source at the bottom of a cascade: a function (a database call, a remote lookup) that
 * answers a key or returns null for "no such key". It stores nothing: {@link #put} is a no-op, so
 * {@link KTowerCascade#insert} writes only the cache levels above it.
 */
public final class LoaderLevel<K, V> implements CascadeLevel<K, V> {

    private final String name;
    private final Function<? super K, ? extends @Nullable V> loader;

    public LoaderLevel(String name, Function<? super K, ? extends @Nullable V> loader) {
        this.name = Objects.requireNonNull(name, "name");
        this.loader = Objects.requireNonNull(loader, "loader");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public @Nullable V get(K key) {
        return loader.apply(key);
    }

    @Override
    public void put(K key, V value) {
        // a source is not a cache
    }
}
