package io.subetha.cxc.boot;

import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;

/**
 * Runs the jobs of a scheduler declared by {@code cxc.schedulers.<name>.*}: a bean of this type,
 * naming its scheduler ({@link #scheduler()}) and giving its codecs, is run by the starter's worker
 * pool ({@code cxc.schedulers.<name>.workers} threads in this process): receive, {@link #handle},
 * record the result. One handler per scheduler in a process.
 *
 * <p><b>Failure.</b> When {@link #handle} throws, the attempt is recorded as failed ({@link
 * BackgroundScheduler#fail}) by the job's retry policy ({@code cxc.schedulers.<name>.retry.*}, or
 * the one its submit gave in {@link io.subetha.cxc.scheduling.JobOptions}): it runs again after its
 * backoff, here or in another process, and once its attempts are spent it is {@code FAILED}, with
 * the exception's class and message and its attempts, until {@link BackgroundScheduler#rerun} or
 * {@link BackgroundScheduler#delete} (in any process; {@code /actuator/cxcjobs} lists it). {@link
 * #onFailed} is told in the process whose attempt failed last. If the failure cannot be recorded,
 * the job stays held by this process and goes back to the queue when it stops (or dies); it is
 * logged at ERROR.
 *
 * <p><b>Long jobs.</b> The starter's ticker beats this process's participant record every tick, so
 * a job may run longer than {@code cxc.schedulers.<name>.grace}; only a process that stops beating
 * (killed, stopped, or its ticker stalled) has its running jobs re-queued. Without the ticker
 * ({@code cxc.leader.enabled=false}) a job longer than the grace calls {@code
 * scheduler.heartbeat()} itself.
 *
 * <p>The scheduler bean is opened with this bean's codecs, so a handler that submits follow-up jobs
 * takes the scheduler as an {@code ObjectProvider} (or {@code @Lazy}), not as a constructor
 * argument.
 *
 * @param <J> the jobs
 * @param <R> the results
 */
public interface JobHandler<J, R> extends SchedulerCodecs<J, R> {

    /**
     * Runs one job. The same job may run again elsewhere if this process is judged dead or silent
     * meanwhile (at least once); its result is recorded once, for the attempt that still holds it.
     */
    R handle(Job<J> job) throws Exception;

    /**
     * Told once a job's last attempt threw {@code failure} and the job is {@code FAILED} (its
     * earlier failures were retried). Does nothing unless overridden; what it throws is logged.
     */
    default void onFailed(Job<J> job, Exception failure) {}

    /**
     * The job's type in the scheduler's history and meters: its payload's class by default; a
     * handler of several kinds of job names them here (at most 48 bytes of UTF-8 are kept).
     */
    default String type(Job<J> job) {
        return job.payload().getClass().getSimpleName();
    }
}
