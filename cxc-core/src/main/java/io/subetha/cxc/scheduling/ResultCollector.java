package io.subetha.cxc.scheduling;

import java.util.List;
import java.util.Optional;

/**
 * Gathers a scheduler's results, in any process.
 *
 * <p><b>Delivered until acknowledged.</b> {@link #poll} claims results for this collector's handle:
 * each is delivered to one collector at a time, and stays recorded until {@link #acknowledge} frees
 * its job slot. If the collector's handle closes, its process dies, or it stays silent beyond the
 * grace (a collector processing longer calls {@link BackgroundScheduler#heartbeat()}) before
 * acknowledging, a scan hands the result back and the next poll, in any process, delivers it again.
 * So every result is delivered at least once, and once more for each collector that polled it and
 * died (or went silent) before its acknowledgement. {@link #take} polls and acknowledges at once:
 * at most once, and a collector that dies in between loses what it took.
 */
public interface ResultCollector<R> {

    /**
     * Claims up to {@code max} recorded results, oldest completion first, for this handle until it
     * {@link #acknowledge acknowledges} them.
     */
    List<JobResult<R>> poll(int max);

    /**
     * Acknowledges results this handle polled: their job slots are free again.
     *
     * @return how many were acknowledged; one this handle no longer held (handed back after it was
     *     judged dead or silent, or closed) is not, and is delivered again
     */
    int acknowledge(List<JobResult<R>> results);

    /**
     * Polls up to {@code max} results and acknowledges them at once; those it acknowledged. Each is
     * taken at most once: a collector that dies before using them loses them.
     */
    List<JobResult<R>> take(int max);

    /** The result of job {@code jobId} if it is recorded and not yet acknowledged. */
    Optional<R> result(long jobId);
}
