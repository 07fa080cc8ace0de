package io.subetha.cxc.console.action;

import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.console.ConsoleRequestException;
import io.subetha.cxc.election.SharedLeaderElection;

/**
 * Makes this process step down if it leads: the next tick of some participant claims the term
 * after. Only the leader itself may step down (no process writes the election on behalf of a claim
 * it did not win), so on another copy's console this answers 409 naming the leader.
 */
public final class StepDown implements ConsoleAction {

    private final LeaderTicker ticker;

    public StepDown(LeaderTicker ticker) {
        this.ticker = ticker;
    }

    @Override
    public String name() {
        return "step-down";
    }

    @Override
    public String perform(ActionRequest request) {
        long self = ticker.participant().pid();
        long leader = ticker.election().currentLeader().orElse(SharedLeaderElection.NO_LEADER);
        if (leader != self) {
            throw ConsoleRequestException.conflict(
                    "pid "
                            + self
                            + " does not lead"
                            + (leader == SharedLeaderElection.NO_LEADER
                                    ? " (no process does)"
                                    : "; pid " + leader + " does: step down from its console"));
        }
        long term = ticker.election().snapshot().term();
        if (!ticker.stepDown()) {
            throw ConsoleRequestException.conflict(
                    "pid " + self + " no longer led when asked to step down");
        }
        return "pid " + self + " stepped down from term " + term;
    }
}
