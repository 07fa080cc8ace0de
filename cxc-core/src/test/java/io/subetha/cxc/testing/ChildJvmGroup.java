package io.subetha.cxc.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * The child JVMs of one test, closed together: make it a field, {@link #add} each child as it is
 * started, and {@link #close()} it in {@code @AfterEach} so every child dies even when the test
 * fails.
 */
public final class ChildJvmGroup implements AutoCloseable {

    private final List<ChildJvm> children = new ArrayList<>();

    public synchronized ChildJvm add(ChildJvm child) {
        children.add(child);
        return child;
    }

    public synchronized List<ChildJvm> children() {
        return List.copyOf(children);
    }

    @Override
    public synchronized void close() {
        RuntimeException failure = null;
        for (ChildJvm child : children) {
            try {
                child.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        children.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
