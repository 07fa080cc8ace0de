package io.subetha.cxc.boot;

import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.ownership.LeaderElectionDescriptor;
import io.subetha.cxc.ownership.SharedLeaderElection;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The term a {@link LeaderOnly} method runs under, bound to the calling thread for the duration of
 * the call: the fencing token to hand to downstream writes, which reject any term lower than the
 * highest they have seen. Read once at the leadership check, so it is exactly the term this process
 * led in when the call was let through.
 *
 * <p>The check is made once, on entry: a call that started runs to its end even if leadership is
 * lost meanwhile. A long job should ask {@link #stillLeads()} between steps (one volatile read) and
 * stop when it answers false; what keeps a late write out is the downstream fence, which refuses
 * the bound term once it has seen a higher one.
 */
public final class LeaderContext {

    static final long NO_TERM = -1;

    /** What a {@link LeaderOnly} call is bound to: its term, and where to check it again. */
    static final class Binding {
        long term = NO_TERM;
        @Nullable SharedLeaderElection election;
        long pid;
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
            throw new IllegalStateException(
                    "no leader term is bound to thread "
                            + Thread.currentThread().getName()
                            + ": LeaderContext is only set inside a @LeaderOnly method called"
                            + " through its Spring proxy");
        }
        return term;
    }

    /**
     * Whether this process still leads under the term the running {@link LeaderOnly} call was let
     * through with: the election's leader word is still this PID with exactly that term. Cheap (one
     * volatile read of the mapped file), so a long job can ask between steps. Not the same as
     * {@code CxcLeadership.isLeader()}, which is also true when this process lost the term and took
     * a <em>new</em> one since: work started under the old term must not go on as if nothing
     * happened. False outside a {@link LeaderOnly} call, and once the election file was replaced or
     * damaged.
     */
    public static boolean stillLeads() {
        Binding binding = TERM.get();
        SharedLeaderElection election = binding.election;
        if (binding.term == NO_TERM || election == null) {
            return false;
        }
        try {
            long word = election.leaderWord();
            return LeaderElectionDescriptor.leaderPid(word) == binding.pid
                    && LeaderElectionDescriptor.term(word) == binding.term
                    && election.termIfLeader(binding.pid) == binding.term;
        } catch (RuntimeException damaged) {
            return false;
        }
    }

    /** The calling thread's binding. */
    static Binding slot() {
        return TERM.get();
    }
}
