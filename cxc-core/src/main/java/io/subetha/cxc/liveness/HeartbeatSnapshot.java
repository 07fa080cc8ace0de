package io.subetha.cxc.liveness;

import io.subetha.cxc.process.ProcessProbe;

/**
 * One read of a held {@link HeartbeatTable} slot. Fields are read one after another, not atomically
 * together; decisions that must be atomic (reclaiming) re-check the owner word by CAS.
 *
 * @param slot the slot index
 * @param pid the owner's PID
 * @param generation the slot's generation: rises on every claim, so a new owner of the same slot is
 *     told apart from the one it replaced
 * @param startTime the owner's start time ({@link ProcessProbe#startTime}), or {@link
 *     ProcessProbe#UNKNOWN_START_TIME} if not (yet) recorded for this generation
 * @param lastBeatEpoch the global epoch at the owner's last beat
 * @param lastBeatNanos {@link System#nanoTime()} (CLOCK_MONOTONIC) at the last beat
 * @param registeredAtEpoch the global epoch when the owner registered
 * @param globalEpoch the global epoch when this snapshot was taken
 */
public record HeartbeatSnapshot(
        int slot,
        long pid,
        int generation,
        long startTime,
        long lastBeatEpoch,
        long lastBeatNanos,
        long registeredAtEpoch,
        long globalEpoch) {

    /** How many epochs the last beat is behind the global epoch (0 if not behind). */
    public long lag() {
        return Math.max(0, globalEpoch - lastBeatEpoch);
    }

    /** Whether the last beat is more than {@code graceEpochs} behind the global epoch. */
    public boolean isStale(long graceEpochs) {
        return globalEpoch - lastBeatEpoch > graceEpochs;
    }

    /** Nanoseconds since the last beat, by this host's monotonic clock. */
    public long nanosSinceLastBeat() {
        return Math.max(0, System.nanoTime() - lastBeatNanos);
    }
}
