package io.subetha.cxc.observe;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The primitives an observer (the Spring Boot starter's endpoint and meters, a test, a CLI) can
 * see. {@link #global()} is the process-wide registry; separate registries serve tests and
 * embedders. Closed primitives are dropped.
 *
 * <p>An observer that must see every primitive whenever it is registered (a meter registry, whose
 * meters are created once per primitive) {@linkplain #subscribe subscribes} instead of polling.
 */
public final class PrimitiveRegistry {

    private static final PrimitiveRegistry GLOBAL = new PrimitiveRegistry();
    private static final System.Logger logger = System.getLogger(PrimitiveRegistry.class.getName());

    private final CopyOnWriteArrayList<ObservedPrimitive> primitives = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Consumer<? super ObservedPrimitive>> subscribers =
            new CopyOnWriteArrayList<>();

    /** The process-wide registry. */
    public static PrimitiveRegistry global() {
        return GLOBAL;
    }

    /**
     * Registers {@code primitive} (once; registering it again does nothing) and returns it, so a
     * creation can be wrapped: {@code registry.register(SharedLeaderElection.TYPE.create(path,
     * SharedLeaderElection.Settings.DEFAULTS))}. Each subscriber is told on the calling thread; one
     * that throws is logged and does not fail the registration.
     */
    public <P extends ObservedPrimitive> P register(P primitive) {
        if (primitives.addIfAbsent(primitive)) {
            for (Consumer<? super ObservedPrimitive> subscriber : subscribers) {
                tell(subscriber, primitive);
            }
        }
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

    /**
     * Calls {@code subscriber} with every open primitive registered so far, then with each one
     * registered from now on, until the returned handle is closed. A primitive registered while
     * this call runs may be passed twice: make the subscriber idempotent.
     *
     * @return closing it unsubscribes
     */
    public Subscription subscribe(Consumer<? super ObservedPrimitive> subscriber) {
        // Subscribe before the replay: a concurrent registration is then seen at least once.
        subscribers.add(subscriber);
        for (ObservedPrimitive primitive : primitives()) {
            tell(subscriber, primitive);
        }
        return () -> subscribers.remove(subscriber);
    }

    private static void tell(
            Consumer<? super ObservedPrimitive> subscriber, ObservedPrimitive primitive) {
        try {
            subscriber.accept(primitive);
        } catch (RuntimeException e) {
            logger.log(
                    System.Logger.Level.WARNING,
                    "a subscriber of the primitive registry failed on " + primitive.name(),
                    e);
        }
    }

    /** A {@link #subscribe} handle. */
    @FunctionalInterface
    public interface Subscription extends AutoCloseable {

        /** Stops telling the subscriber about new primitives. */
        @Override
        void close();
    }
}
