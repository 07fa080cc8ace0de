package io.subetha.cxc.boot;

import io.subetha.cxc.scheduling.Job;

/**
 * Runs the jobs of a scheduler declared by {@code cxc.schedulers.<name>.*}: a bean of this type,
 * naming its scheduler ({@link #scheduler()}) and giving its codecs, is run by the starter's worker
 * pool ({@code cxc.schedulers.<name>.workers} threads in this process): receive, {@link #handle},
 * record the result. One handler per scheduler in a process.
 *
 * <p><b>Failure.</b> When {@link #handle} throws, the result of {@link #onFailure} is recorded for
 * the job instead, so the collector sees every job end, once (the scheduler has no failed state:
 * the result type says what failed, e.g. a negative number or a status field). To run the job
 * again, submit it again from {@code onFailure}. If {@code onFailure} throws too, or the result
 * does not encode, the job stays held by this process and goes back to the queue when it stops (or
 * dies); it is logged at ERROR.
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

    /** The result recorded for a job whose {@link #handle} threw {@code failure}. */
    R onFailure(Job<J> job, Exception failure);
}
