package io.subetha.cxc.testing;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Holds one thread at one step of a protocol (an {@link Point Interleaving point}, or any other
 * hook such as {@link HeldCodec}'s entry to a copy), as a debugger breakpoint would, while the test
 * plays another claimant; then lets it go on. Only the gate's own thread is held, and only the
 * first time it reaches the step.
 */
public final class StepGate<T> implements AutoCloseable {

    /** Where a gate can hold its thread: a hook the code under test passes at its steps. */
    @FunctionalInterface
    public interface Hook {
        /**
         * Has {@code pause} run each time any thread passes the step (the gate decides whom it
         * holds), and returns what takes it out again.
         */
        Runnable install(Runnable pause);
    }

    private static final long WAIT_SECONDS = 10;

    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicBoolean held = new AtomicBoolean();
    private final Runnable uninstall;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private final Thread thread;

    private StepGate(String step, Hook hook, Supplier<T> action) {
        thread =
                new Thread(
                        () -> {
                            try {
                                result.complete(action.get());
                            } catch (Throwable t) {
                                result.completeExceptionally(t);
                            }
                        },
                        "held-at-" + step);
        uninstall =
                hook.install(
                        () -> {
                            if (Thread.currentThread() == thread
                                    && held.compareAndSet(false, true)) {
                                reached.countDown();
                                awaitUninterruptibly(released);
                            }
                        });
    }

    /**
     * Starts {@code action} on its own thread and returns once that thread is held at {@code
     * point}.
     *
     * @throws AssertionError if the action finished or failed without reaching the point
     */
    public static <T> StepGate<T> holdAt(Point point, Supplier<T> action) {
        return holdAt(
                point.toString(),
                pause -> {
                    Interleaving.Installed installed =
                            Interleaving.install(
                                    p -> {
                                        if (p == point) {
                                            pause.run();
                                        }
                                    });
                    return installed::close;
                },
                action);
    }

    /**
     * Starts {@code action} on its own thread and returns once that thread is held where {@code
     * hook} pauses it ({@code step} names it in messages).
     *
     * @throws AssertionError if the action finished or failed without reaching the step
     */
    public static <T> StepGate<T> holdAt(String step, Hook hook, Supplier<T> action) {
        StepGate<T> gate = new StepGate<>(step, hook, action);
        gate.thread.setDaemon(true);
        gate.thread.start();
        try {
            while (!gate.reached.await(10, TimeUnit.MILLISECONDS)) {
                if (gate.result.isDone()) {
                    gate.close();
                    throw new AssertionError(
                            "the action finished without reaching " + step + ": " + gate.result);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return gate;
    }

    /** Lets the held thread go on and returns what its action returned. */
    public T release() {
        released.countDown();
        uninstall.run();
        try {
            return result.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new AssertionError(e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("the released action did not finish", e);
        }
    }

    /** Whether the action has returned (or thrown) yet. */
    public boolean isDone() {
        return result.isDone();
    }

    @Override
    public void close() {
        released.countDown();
        uninstall.run();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            if (!latch.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("held for more than " + WAIT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
