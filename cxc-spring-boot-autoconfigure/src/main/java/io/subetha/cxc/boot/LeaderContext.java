package io.subetha.cxc.boot;

import io.subetha.cxc.boot.annotation.LeaderOnly;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The term a {@link LeaderOnly} method runs under, bound to the calling thread for the duration of
 * the call: the fencing token to hand to downstream writes, which reject any term lower than the
 * highest they have seen. Read once at the leadership check, so it is exactly the term this process
 * led in when the call was let through.
 *
 * <p>The check is made once, on entry: a call that started runs to its end even if leadership is
 * lost meanwhile. A long job checks {@link #stillLeads()} between its steps, and hands the term to
 * every downstream write, which is what actually keeps a deposed leader's late writes out.
 */
public final class LeaderContext {

    /** The term of a thread with no {@link LeaderOnly} call running. */
    public static final long NO_TERM = -1;

    /**
     * The calling thread's binding: the term, and the leadership it was read from (null when bound
     * without an election, as {@code InLeaderTerm} does in unit tests). For the code that binds a
     * term around a call (the {@code @LeaderOnly} advice, {@code InLeaderTerm}), which restores the
     * outer binding when the call ends; application code reads the term through {@link
     * #currentTerm()}.
     */
    public static final class Binding {
        private long term = NO_TERM;
        private @Nullable CxcLeadership leadership;

        private Binding() {}

        /** The bound term, or {@link #NO_TERM}. */
        public long term() {
            return term;
        }

        /** The leadership the term was read from, or null. */
        public @Nullable CxcLeadership leadership() {
            return leadership;
        }

        /** Binds {@code term}, read from {@code leadership} (null: no election, stillLeads()). */
        public void bind(long term, @Nullable CxcLeadership leadership) {
            this.term = term;
            this.leadership = leadership;
        }
    }

    // One mutable slot per thread, reused by every call: binding a term allocates nothing.
    private static final ThreadLocal<Binding> TERM = ThreadLocal.withInitial(Binding::new);

    private LeaderContext() {}

    /** The term of the {@link LeaderOnly} call running on this thread; empty outside one. */
    public static OptionalLong currentTerm() {
        long term = TERM.get().term;
        return term == NO_TERM ? OptionalLong.empty() : OptionalLong.of(term);
    }

    /**
     * The term of the {@link LeaderOnly} call running on this thread.
     *
     * @throws IllegalStateException outside a {@link LeaderOnly} call
     */
    public static long requireCurrentTerm() {
        long term = TERM.get().term;
        if (term == NO_TERM) {
            throw unbound();
        }
        return term;
    }

    /**
     * Whether this process still leads under the term the running {@link LeaderOnly} call was let
     * through under: the election's leader word still holds this PID <em>and</em> that term (with
     * the ZooKeeper backend, this process still holds the global latch under that global term). One
     * read of {@link CxcLeadership#termIfLeader()}, allocation-free: cheap enough to call between
     * the steps of a long job, which should stop once it answers false.
     *
     * <p>Not the same as {@link CxcLeadership#isLeader()}: after losing leadership and re-taking it
     * under a new term (a lower PID takes the seat back at once after a thaw or a step-down),
     * {@code isLeader()} says true again, while this says false for a call that started under the
     * old term. A successor may have run meanwhile.
     *
     * <p>Bound by {@code InLeaderTerm} in a unit test (no election), it answers true.
     *
     * @throws IllegalStateException outside a {@link LeaderOnly} call, as {@link
     *     #requireCurrentTerm()} does: a job that asks outside one is called around its proxy
     */
    public static boolean stillLeads() {
        Binding slot = TERM.get();
        long term = slot.term;
        if (term == NO_TERM) {
            throw unbound();
        }
        CxcLeadership leadership = slot.leadership;
        return leadership == null || leadership.termIfLeader() == term;
    }

    private static IllegalStateException unbound() {
        return new IllegalStateException(
                "no leader term is bound to thread "
                        + Thread.currentThread().getName()
                        + ": LeaderContext is only set inside a @LeaderOnly method called"
                        + " through its Spring proxy");
    }

    /**
     * The calling thread's binding, reused by every call (binding a term allocates nothing): for
     * the code that binds a term, see {@link Binding}.
     */
    public static Binding binding() {
        return TERM.get();
    }
}
