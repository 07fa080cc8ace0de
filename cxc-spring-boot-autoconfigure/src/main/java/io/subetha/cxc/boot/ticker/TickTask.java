package io.subetha.cxc.boot.ticker;

/**
 * Work that runs on the cxc ticker's thread after each election round, such as beating a heartbeat
 * slot or polling a watchdog. Beans of this type are picked up by the ticker. A task that throws is
 * logged; the next tick runs it again.
 */
@FunctionalInterface
public interface TickTask {

    /** Runs one tick's work; keep it short, it delays the next tick. */
    void onTick();
}
