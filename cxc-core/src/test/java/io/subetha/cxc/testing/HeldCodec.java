package io.subetha.cxc.testing;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * {@link FixedCodec#INT64} (same layout, same fingerprint, so it opens the same files) that can
 * hold a thread on entry to a read or a write, before it touches the buffer: the line of a protocol
 * between a CAS that claimed a slot and the copy of its payload, where a pause (a GC, a {@code
 * SIGSTOP}, a descheduled thread) changes what other handles see.
 */
public final class HeldCodec implements FixedCodec<Long> {

    /** Which copy a thread is held before. */
    public enum Side {
        READ,
        WRITE
    }

    private static final long WAIT_SECONDS = 10;

    private volatile @Nullable Consumer<Side> onEntry;

    @Override
    public int size() {
        return 8;
    }

    @Override
    public void write(AtomicBuffer buffer, int offset, Long value) {
        entered(Side.WRITE);
        FixedCodec.INT64.write(buffer, offset, value);
    }

    @Override
    public Long read(AtomicBuffer buffer, int offset) {
        entered(Side.READ);
        return FixedCodec.INT64.read(buffer, offset);
    }

    @Override
    public long fingerprint() {
        return FixedCodec.INT64.fingerprint();
    }

    @Override
    public String describe() {
        return FixedCodec.INT64.describe();
    }

    private void entered(Side side) {
        Consumer<Side> current = onEntry;
        if (current != null) {
            current.accept(side);
        }
    }

    /** Calls {@code observer} on entry to every read and write, until replaced; for child JVMs. */
    public void onEntry(@Nullable Consumer<Side> observer) {
        onEntry = observer;
    }

    /**
     * Starts {@code action} on its own thread and returns once that thread is held on entry to a
     * {@code side} copy of this codec (its first; other threads pass).
     *
     * @throws AssertionError if the action finished without reaching it
     */
    public <T> Held<T> hold(Side side, Supplier<T> action) {
        Held<T> held = new Held<>(side, action);
        held.thread.start();
        try {
            while (!held.reached.await(10, TimeUnit.MILLISECONDS)) {
                if (held.result.isDone()) {
                    held.close();
                    throw new AssertionError(
                            "the action finished without a " + side + ": " + held.result);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return held;
    }

    /** A thread held inside the codec. */
    public final class Held<T> implements AutoCloseable {
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private final AtomicBoolean taken = new AtomicBoolean();
        private final CompletableFuture<T> result = new CompletableFuture<>();
        private final Thread thread;

        private Held(Side side, Supplier<T> action) {
            thread =
                    new Thread(
                            () -> {
                                try {
                                    result.complete(action.get());
                                } catch (Throwable t) {
                                    result.completeExceptionally(t);
                                }
                            },
                            "held-before-" + side);
            thread.setDaemon(true);
            onEntry(
                    s -> {
                        if (s == side
                                && Thread.currentThread() == thread
                                && taken.compareAndSet(false, true)) {
                            reached.countDown();
                            try {
                                if (!released.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                                    throw new AssertionError(
                                            "held for more than " + WAIT_SECONDS + " s");
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    });
        }

        /** Lets the held thread go on and returns what its action returned. */
        public T release() {
            released.countDown();
            try {
                return result.get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                throw new AssertionError(e.getCause());
            } catch (InterruptedException | TimeoutException e) {
                throw new AssertionError("the released action did not finish", e);
            } finally {
                onEntry(null);
            }
        }

        /** Whether the action has returned (or thrown) yet. */
        public boolean isDone() {
            return result.isDone();
        }

        @Override
        public void close() {
            released.countDown();
            onEntry(null);
        }
    }
}
