package io.subetha.cxc.chaos.crash;

/**
 * The event log's state: how many events were folded and a hash of them in fold order, so a state
 * tells which prefix of the log it is the fold of, and an event folded twice, skipped or out of
 * order shows.
 */
public record Fold(long count, long hash) {

    public static final Fold EMPTY = new Fold(0, 0);

    public Fold with(long event) {
        return new Fold(count + 1, Long.rotateLeft(hash, 13) * 0x9E3779B97F4A7C15L + event);
    }
}
