package io.subetha.cxc.scheduling;

import java.util.List;
import java.util.Optional;

/** Gathers a scheduler's results, in any process. */
public interface ResultCollector<R> {

    /**
     * Takes up to {@code max} recorded results, oldest completion first; each result is taken by
     * exactly one poll in any process, and its job slot is free again afterwards.
     */
    List<JobResult<R>> poll(int max);

    /** The result of job {@code jobId} if it is recorded and not yet taken by a poll. */
    Optional<R> result(long jobId);
}
