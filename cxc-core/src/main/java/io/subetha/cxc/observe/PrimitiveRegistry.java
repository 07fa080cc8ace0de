package io.subetha.cxc.observe;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The primitives an observer (the Spring Boot starter's endpoint and meters, a test, a CLI) can
 * see. {@link #global()} is the process-wide registry, the seed's sidecar; separate registries
 * serve tests and embedders. Closed primitives are dropped.
 */
public final class PrimitiveRegistry {

    private static final PrimitiveRegistry GLOBAL = new PrimitiveRegistry();

    private final CopyOnWriteArrayList<ObservedPrimitive> primitives = new CopyOnWriteArrayList<>();

    /** The process-wide registry. */
    public static PrimitiveRegistry global() {
        return GLOBAL;
    }

    /**
     * Registers {@code primitive} (once; registering it again does nothing) and returns it, so a
     * creation can be wrapped: {@code registry.register(SharedLeaderElection.create(path))}.
     */
    public <P extends ObservedPrimitive> P register(P primitive) {
        primitives.addIfAbsent(primitive);
        return primitive;
    }

    public void unregister(ObservedPrimitive primitive) {
        primitives.remove(primitive);
    }

    /** The registered primitives that are still open, in registration order. */
    public List<ObservedPrimitive> primitives() {
        primitives.removeIf(ObservedPrimitive::isClosed);
        return List.copyOf(primitives);
    }
}
