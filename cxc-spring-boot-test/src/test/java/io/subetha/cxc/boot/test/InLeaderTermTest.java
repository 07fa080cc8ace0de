package io.subetha.cxc.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.LeaderContext;
import org.junit.jupiter.api.Test;

/** A {@code @LeaderOnly} body tested without Spring: the term is bound, then unbound. */
class InLeaderTermTest {

    /** What a user's job looks like: its body reads the fencing token. */
    static final class Rotation {
        long fencedWith = -1;

        void rotate() {
            fencedWith = LeaderContext.requireCurrentTerm();
        }
    }

    @Test
    void theBodySeesTheTermAndNothingIsBoundAfterwards() throws Exception {
        Rotation rotation = new Rotation();
        InLeaderTerm.run(7, rotation::rotate);
        assertThat(rotation.fencedWith).isEqualTo(7);
        assertThat(InLeaderTerm.call(7, LeaderContext::stillLeads)).isTrue();
        assertThat(LeaderContext.currentTerm()).isEmpty();
        assertThat(
                        InLeaderTerm.call(
                                3, () -> InLeaderTerm.call(4, LeaderContext::requireCurrentTerm)))
                .isEqualTo(4);
        assertThatThrownBy(
                        () ->
                                InLeaderTerm.run(
                                        9,
                                        () -> {
                                            throw new IllegalStateException("boom");
                                        }))
                .hasMessage("boom");
        assertThat(LeaderContext.currentTerm()).isEmpty();
        assertThatThrownBy(rotation::rotate).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(LeaderContext::stillLeads).isInstanceOf(IllegalStateException.class);
    }
}
