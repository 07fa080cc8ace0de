package io.subetha.cxc.boot.aop;

import io.subetha.cxc.boot.ticker.LeaderTicker;
import java.time.Duration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * The first step of a graceful shutdown: refuses new {@code @LeaderOnly} calls and waits, up to
 * {@code cxc.leader.shutdown-timeout}, for the running ones to finish, while the ticker still beats
 * as leader. Only then does the ticker stop and step down, so a successor's first run never
 * overlaps this process's last one.
 *
 * <p>It depends on the ticker bean, so Spring stops it before the ticker (a lifecycle bean's
 * dependents are stopped first), in the same, last, phase; and the context's {@code
 * ContextClosedEvent} (on which Boot's task scheduler stops handing out runs) comes before either.
 */
public final class LeaderOnlyDrain implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(LeaderOnlyDrain.class);

    private final @Nullable LeaderOnlyAdvisor advisor;
    private final LeaderTicker ticker;
    private final Duration timeout;
    private volatile boolean running;

    /**
     * @param advisor null when the application has no {@code @LeaderOnly} advisor: nothing to drain
     */
    public LeaderOnlyDrain(
            @Nullable LeaderOnlyAdvisor advisor, LeaderTicker ticker, Duration timeout) {
        this.advisor = advisor;
        this.ticker = ticker;
        this.timeout = timeout;
    }

    @Override
    public void start() {
        if (advisor != null) {
            advisor.reopen();
        }
        running = true;
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        running = false;
        if (advisor == null) {
            return;
        }
        int calls = advisor.inFlight();
        if (calls > 0) {
            logger.info(
                    "cxc: waiting up to "
                            + timeout.toMillis()
                            + " ms for "
                            + calls
                            + " running @LeaderOnly call(s) before stepping down; new calls are"
                            + " refused");
        }
        long started = System.nanoTime();
        int left = advisor.drain(timeout);
        if (left > 0) {
            logger.warn(
                    "cxc: "
                            + left
                            + " @LeaderOnly call(s) still running after cxc.leader.shutdown-timeout ("
                            + timeout.toMillis()
                            + " ms); stepping down anyway: a successor may now run alongside"
                            + " them");
        } else if (calls > 0) {
            logger.info(
                    "cxc: the running @LeaderOnly calls finished in "
                            + Duration.ofNanos(System.nanoTime() - started).toMillis()
                            + " ms");
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The ticker's: stopped with it, before it (it depends on the ticker). */
    @Override
    public int getPhase() {
        return ticker.getPhase();
    }
}
