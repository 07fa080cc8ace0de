package io.subetha.cxc.participant;

/**
 * Laps as a slot word keeps them: the low {@code bits} of a slot's lap, which a ring of slots reads
 * back as the full lap nearest its head's.
 */
public final class LapTags {

    private LapTags() {}

    /**
     * The full lap a {@code bits}-wide lap tag stands for, within one lap of {@code headLap}: a
     * slot word is at most one lap behind (its item not yet taken) or ahead (reserved past a head
     * that has not moved yet) of its ring's head.
     */
    public static long fullLap(long headLap, long tag, int bits) {
        long candidate = (headLap & ~((1L << bits) - 1)) | tag;
        if (candidate > headLap + 1) {
            candidate -= 1L << bits;
        } else if (candidate < headLap - 1) {
            candidate += 1L << bits;
        }
        return candidate;
    }
}
