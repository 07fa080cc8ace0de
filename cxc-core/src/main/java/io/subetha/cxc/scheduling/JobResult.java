package io.subetha.cxc.scheduling;

/**
 * A recorded result.
 *
 * @param jobId the job's id, as {@link BackgroundScheduler#submit} returned it
 * @param attempt the attempt that recorded it
 * @param completion its place in completion order (0-based over the file's life; gaps where a
 *     completer died before recording)
 */
public record JobResult<R>(long jobId, long attempt, long completion, R result) {}
