package io.subetha.cxc.boot.ticker;

/** Runs a ticker's tick on the test's thread, for tests of the parts a tick drives. */
public final class ManualTicks {

    private ManualTicks() {}

    /** One tick of {@code ticker}: its election round, then its tasks. */
    public static void tick(LeaderTicker ticker) {
        ticker.tick();
    }
}
