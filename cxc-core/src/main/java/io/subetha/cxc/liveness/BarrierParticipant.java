package io.subetha.cxc.liveness;

import java.util.OptionalInt;

/**
 * One read of an {@link EpochBarrier} participant slot, for display and diagnosis.
 *
 * @param slot the participant slot
 * @param pid the participant's process
 * @param generation the slot's generation: rises each time a participant joins in it
 * @param lastArrivedEpoch the last epoch it arrived at, empty if it has not arrived since joining
 * @param nanosSinceHeartbeat how long ago it last showed a sign of life (joined, arrived, beat, or
 *     waited), by this host's monotonic clock
 */
public record BarrierParticipant(
        int slot,
        long pid,
        int generation,
        OptionalInt lastArrivedEpoch,
        long nanosSinceHeartbeat) {}
