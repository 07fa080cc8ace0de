package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.CxcSettingsException;
import java.time.Duration;

/**
 * A declared scheduler's worker pool in this process: how many threads run its jobs (0 runs none
 * here), and how long running jobs get to finish when the application stops. Its constructor is the
 * one place these limits are written.
 *
 * @param workers threads in this process that receive and run the scheduler's jobs
 * @param shutdownTimeout the longest running jobs get to finish on shutdown
 */
public record WorkerPoolSettings(int workers, Duration shutdownTimeout) {

    /** A pool's most threads: more would only contend for the same file. */
    public static final int MAX_WORKERS = 256;

    /** Past this, a stopping application would look hung. */
    public static final Duration MAX_SHUTDOWN_TIMEOUT = Duration.ofMinutes(10);

    public WorkerPoolSettings {
        CxcSettingsException.requireInRange(
                "workers", workers, 0, MAX_WORKERS, " (threads in this process)");
        requireUpTo("shutdownTimeout", shutdownTimeout, MAX_SHUTDOWN_TIMEOUT);
    }

    /** Throws naming {@code setting} unless {@code value} is 0 up to {@code max} whole minutes. */
    static void requireUpTo(String setting, Duration value, Duration max) {
        if (value == null || value.isNegative() || value.compareTo(max) > 0) {
            throw new CxcSettingsException(
                    setting, setting + " must be 0s.." + max.toMinutes() + "m, got " + value);
        }
    }
}
