package io.subetha.cxc.boot.test;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.LeaderContext;
import java.util.concurrent.Callable;

/**
 * For unit tests of a {@link io.subetha.cxc.boot.annotation.LeaderOnly} method's body, called
 * without its Spring proxy: binds a term to the calling thread as the advice would, so {@link
 * LeaderContext#requireCurrentTerm()} answers it (and {@link LeaderContext#stillLeads()} answers
 * true), and unbinds it afterwards.
 *
 * <pre>{@code
 * InLeaderTerm.run(7, () -> job.rotateSnapshots());
 * assertThat(store.lastFencingToken()).isEqualTo(7);
 * }</pre>
 *
 * In the test artifact only: production code gets its term from the election.
 */
public final class InLeaderTerm {

    private InLeaderTerm() {}

    /** A body that may throw. */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    /** Runs {@code body} with {@code term} bound, as a {@code @LeaderOnly} call under it. */
    public static void run(long term, Body body) throws Exception {
        call(
                term,
                () -> {
                    body.run();
                    return null;
                });
    }

    /** Calls {@code body} with {@code term} bound and returns its result. */
    public static <T> T call(long term, Callable<T> body) throws Exception {
        if (term < 0) {
            throw new IllegalArgumentException("a term is 0 or more, got " + term);
        }
        LeaderContext.Binding slot = LeaderContext.binding();
        long outer = slot.term();
        CxcLeadership outerLeadership = slot.leadership();
        slot.bind(term, null); // no election: LeaderContext.stillLeads() answers true
        try {
            return body.call();
        } finally {
            slot.bind(outer, outerLeadership);
        }
    }
}
