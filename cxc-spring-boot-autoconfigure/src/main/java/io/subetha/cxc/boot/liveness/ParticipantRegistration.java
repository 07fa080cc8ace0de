package io.subetha.cxc.boot.liveness;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.liveness.SlotLostException;
import java.time.Duration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.Ordered;

/**
 * This process's slot in the participants' heartbeat table: registered on start, beaten on every
 * tick of the {@link LeaderTicker} (which also advances the table's global epoch when due, at the
 * tick interval, so that lag means something), unregistered on graceful shutdown so the others see
 * the exit at once. A slot lost after a long pause (another process reclaimed it) is registered
 * again on the next tick.
 *
 * <p>Its phase is just below the ticker's: it registers before the ticker's first tick and
 * unregisters after the ticker's last, so no tick beats a slot it no longer holds.
 */
public final class ParticipantRegistration implements TickTask, SmartLifecycle, Ordered {

    private static final Log logger = LogFactory.getLog(ParticipantRegistration.class);

    private final HeartbeatTable table;
    private final long pid;
    private final long graceEpochs;
    private final Duration tickInterval;

    private boolean running;
    private int slot = -1;

    public ParticipantRegistration(
            HeartbeatTable table, long pid, long graceEpochs, Duration tickInterval) {
        this.table = table;
        this.pid = pid;
        this.graceEpochs = graceEpochs;
        this.tickInterval = tickInterval;
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        try {
            slot = table.register(pid, graceEpochs);
        } catch (CxcCapacityException e) {
            throw new InvalidCxcPropertyException(
                    "cxc.heartbeat.capacity",
                    table.capacity(),
                    "every slot of "
                            + table.file()
                            + " is held by a live process: "
                            + e.getMessage(),
                    "Stop a participant, or raise cxc.heartbeat.capacity in every process (up to "
                            + HeartbeatTable.IN_FLIGHT_SLOTS
                            + ") and remove the file while none runs: its capacity is fixed when"
                            + " it is created.");
        }
        running = true;
        logger.info("cxc: pid " + pid + " takes part as slot " + slot + " of " + table.file());
    }

    @Override
    public synchronized void onTick() {
        if (!running) {
            return;
        }
        table.tickGlobalEpochIfDue(tickInterval);
        if (slot < 0) {
            slot = table.register(pid, graceEpochs); // the last tick lost it and failed to rejoin
            logger.info("cxc: pid " + pid + " takes part again as slot " + slot);
            return;
        }
        try {
            table.beat(slot);
        } catch (SlotLostException e) {
            slot = -1;
            logger.warn("cxc: " + e.getMessage() + "; registering again");
            slot = table.register(pid, graceEpochs);
            logger.info("cxc: pid " + pid + " takes part again as slot " + slot);
        }
    }

    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        if (slot >= 0) {
            table.unregister(slot);
            slot = -1;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    /** Just below the ticker's: started before its first tick, stopped after its last. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 1;
    }

    /** First among the tick tasks: this tick's beat does not wait for the others' work. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    /** This process's slot, or -1 when it holds none. */
    public synchronized int slot() {
        return slot;
    }

    @Override
    public String toString() {
        return "ParticipantRegistration[pid=" + pid + ", " + table + "]";
    }
}
