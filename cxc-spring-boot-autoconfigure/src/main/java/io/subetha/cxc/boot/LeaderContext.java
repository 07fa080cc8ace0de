package io.subetha.cxc.boot;

import io.subetha.cxc.boot.annotation.LeaderOnly;
import java.util.OptionalLong;

/**
 * The term a {@link LeaderOnly} method runs under, bound to the calling thread for the duration of
 * the call: the fencing token to hand to downstream writes, which reject any term lower than the
 * highest they have seen. Read once at the leadership check, so it is exactly the term this process
 * led in when the call was let through.
 */
public final class LeaderContext {

    static final long NO_TERM = -1;

    // One mutable slot per thread, reused by every call: binding a term allocates nothing.
    private static final ThreadLocal<long[]> TERM =
            ThreadLocal.withInitial(() -> new long[] {NO_TERM});

    private LeaderContext() {}

    /** The term of the {@link LeaderOnly} call running on this thread; empty outside one. */
    public static OptionalLong currentTerm() {
        long term = TERM.get()[0];
        return term == NO_TERM ? OptionalLong.empty() : OptionalLong.of(term);
    }

    /**
     * The term of the {@link LeaderOnly} call running on this thread.
     *
     * @throws IllegalStateException outside a {@link LeaderOnly} call
     */
    public static long requireCurrentTerm() {
        long term = TERM.get()[0];
        if (term == NO_TERM) {
            throw new IllegalStateException(
                    "no leader term is bound to thread "
                            + Thread.currentThread().getName()
                            + ": LeaderContext is only set inside a @LeaderOnly method called"
                            + " through its Spring proxy");
        }
        return term;
    }

    /** The calling thread's slot; {@code slot[0]} is the bound term or {@link #NO_TERM}. */
    static long[] slot() {
        return TERM.get();
    }
}
