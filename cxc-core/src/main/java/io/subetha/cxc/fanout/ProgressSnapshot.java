package io.subetha.cxc.fanout;

import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A moment's view of a {@link ProgressTask}.
 *
 * @param done units advanced so far (workers may overshoot the total; {@link #percent} stops at
 *     100)
 * @param total units the task was created with
 * @param completed whether {@link ProgressTask#complete()} was called
 * @param failed whether {@link ProgressTask#fail} was called
 * @param lastUpdate wall-clock time of the last advance, completion or failure (creation time
 *     before any)
 */
public record ProgressSnapshot(
        long done,
        long total,
        boolean completed,
        boolean failed,
        @Nullable String failureReason,
        Instant lastUpdate) {

    /** {@code done / total} in 0..1. */
    public double ratio() {
        return total <= 0 ? 0 : Math.min(1.0, Math.max(0, done) / (double) total);
    }

    /** {@code done / total} in 0..100. */
    public double percent() {
        return ratio() * 100;
    }

    /** Why the task failed, if it did and the reason is known. */
    public Optional<String> reason() {
        return Optional.ofNullable(failureReason);
    }

    /** Whether the task ended, either way. */
    public boolean finished() {
        return completed || failed;
    }
}
