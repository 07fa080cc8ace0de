package io.subetha.cxc.console.action;

import io.subetha.cxc.console.ConsoleRequestException;
import io.subetha.cxc.console.Schedulers;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.JobEntry;
import java.util.Locale;
import java.util.function.BiPredicate;

/**
 * Re-runs or deletes a failed job ({@code scheduler}, {@code job}): one CAS on the job's slot in
 * the scheduler's file, which any process may make. An unknown scheduler or a job the ring no
 * longer holds (collected, deleted, never submitted: a stale id) is 404; a job that is not failed
 * (queued, running, done, or re-run or deleted meanwhile) is 409, and nothing changes.
 */
public final class FailedJobAction implements ConsoleAction {

    private final String name;
    private final String done;
    private final Schedulers schedulers;
    private final BiPredicate<BackgroundScheduler<?, ?>, Long> step;

    private FailedJobAction(
            String name,
            String done,
            Schedulers schedulers,
            BiPredicate<BackgroundScheduler<?, ?>, Long> step) {
        this.name = name;
        this.done = done;
        this.schedulers = schedulers;
        this.step = step;
    }

    /** {@code rerun-job}: queues the failed job again, its retry policy's attempts anew. */
    public static FailedJobAction rerun(Schedulers schedulers) {
        return new FailedJobAction(
                "rerun-job", "queued again", schedulers, BackgroundScheduler::rerun);
    }

    /** {@code delete-job}: frees the failed job's slot. */
    public static FailedJobAction delete(Schedulers schedulers) {
        return new FailedJobAction(
                "delete-job", "deleted", schedulers, BackgroundScheduler::delete);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String perform(ActionRequest request) {
        BackgroundScheduler<?, ?> scheduler = schedulers.require(request.required("scheduler"));
        long id = request.requiredLong("job");
        JobEntry job =
                scheduler.jobs().stream()
                        .filter(j -> j.id() == id)
                        .findFirst()
                        .orElseThrow(
                                () ->
                                        ConsoleRequestException.notFound(
                                                "scheduler \""
                                                        + scheduler.name()
                                                        + "\" holds no job "
                                                        + id
                                                        + ": it was collected, deleted or never"
                                                        + " submitted"));
        if (job.state() != JobEntry.State.FAILED || !step.test(scheduler, id)) {
            String state =
                    job.state() == JobEntry.State.FAILED
                            ? "no longer failed"
                            : job.state().name().toLowerCase(Locale.ROOT) + ", not failed";
            throw ConsoleRequestException.conflict(
                    "job "
                            + id
                            + " of \""
                            + scheduler.name()
                            + "\" is "
                            + state
                            + ": only a failed job is re-run or deleted");
        }
        return "job " + id + " of \"" + scheduler.name() + "\" " + done;
    }
}
