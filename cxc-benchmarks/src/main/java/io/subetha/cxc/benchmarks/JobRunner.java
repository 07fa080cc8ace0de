package io.subetha.cxc.benchmarks;

import java.time.Duration;
import java.util.OptionalDouble;

/**
 * One job runner as {@link JobRunnerShootout} measures it: every row is the same measurement for
 * every runner, each job running {@link JobProbe#handle}. The shootout calls {@link
 * #deadWorkerMillis} first, while the runner's own workers are not started yet, so a child JVM can
 * take the held job before this process's workers could.
 */
interface JobRunner extends AutoCloseable {

    /** The wait a failed job's retry is configured with, in every runner. */
    Duration BACKOFF = Duration.ofSeconds(1);

    /** How the runner is set up, for the table. */
    String name();

    /**
     * A job held by a worker in a child JVM that is then SIGKILLed: milliseconds from the kill
     * until this process's workers start it; empty where the runner cannot share a job across
     * processes. Starts this process's workers.
     */
    OptionalDouble deadWorkerMillis() throws Exception;

    /** Jobs per second, {@code jobs} submitted at once, until the runner records each done. */
    double jobsPerSecond(int jobs) throws Exception;

    /** Nanoseconds from submitting one job to an idle runner until its body starts. */
    long loneStartNanos() throws Exception;

    /**
     * Milliseconds from a job's first attempt throwing until its retry starts, after {@link
     * #BACKOFF}.
     */
    double retryMillis() throws Exception;
}
