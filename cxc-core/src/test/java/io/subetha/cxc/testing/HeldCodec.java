package io.subetha.cxc.testing;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
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
    public <T> StepGate<T> hold(Side side, Supplier<T> action) {
        return StepGate.holdAt(
                "the " + side + " of a payload",
                pause -> {
                    onEntry(
                            s -> {
                                if (s == side) {
                                    pause.run();
                                }
                            });
                    return () -> onEntry(null);
                },
                action);
    }
}
