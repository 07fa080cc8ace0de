package io.subetha.cxc.console.action;

import io.subetha.cxc.console.ConsoleRequestException;
import io.subetha.cxc.console.Schedulers;
import io.subetha.cxc.scheduling.BackgroundScheduler;

/**
 * Pauses or resumes a scheduler's dispatch ({@code scheduler}) in every process on its file: an
 * operator's setting in the file, which outlives this process (see {@link
 * io.subetha.cxc.scheduling.SchedulerDispatch}). An unknown scheduler is 404; pausing a paused one,
 * or resuming one that dispatches, is 409.
 */
public final class DispatchAction implements ConsoleAction {

    private final boolean pause;
    private final Schedulers schedulers;

    private DispatchAction(boolean pause, Schedulers schedulers) {
        this.pause = pause;
        this.schedulers = schedulers;
    }

    /** {@code pause-scheduler}: no process's workers receive its jobs until resumed. */
    public static DispatchAction pause(Schedulers schedulers) {
        return new DispatchAction(true, schedulers);
    }

    /** {@code resume-scheduler}: every process's workers receive its jobs again. */
    public static DispatchAction resume(Schedulers schedulers) {
        return new DispatchAction(false, schedulers);
    }

    @Override
    public String name() {
        return pause ? "pause-scheduler" : "resume-scheduler";
    }

    @Override
    public String perform(ActionRequest request) {
        BackgroundScheduler<?, ?> scheduler = schedulers.require(request.required("scheduler"));
        boolean changed = pause ? scheduler.dispatch().pause() : scheduler.dispatch().resume();
        if (!changed) {
            throw ConsoleRequestException.conflict(
                    "scheduler \""
                            + scheduler.name()
                            + "\" is "
                            + (pause ? "paused already" : "not paused"));
        }
        return "scheduler \""
                + scheduler.name()
                + "\" "
                + (pause ? "paused: no process receives its jobs" : "resumed")
                + " in every process";
    }
}
