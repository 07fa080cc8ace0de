package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.scheduling.Job;
import java.util.concurrent.Callable;

/**
 * Watches the runs of this process's worker pools (meters, history, observations): registered on
 * {@link SchedulerWorkers#observe}. Each call is on the worker's thread; what an observer throws is
 * logged and does not change the job's outcome.
 */
public interface JobRunObserver {

    /**
     * Runs {@code handle} (the handler's call for {@code job}), around it what the observer needs
     * on the worker's thread (an Observation's scope). Returns what {@code handle} returns, throws
     * what it throws.
     */
    default <R> R around(String scheduler, Job<?> job, Callable<R> handle) throws Exception {
        return handle.call();
    }

    /** A run's outcome, once the scheduler recorded it. */
    default void ended(JobRun run) {}
}
