package io.subetha.cxc.boot.liveness;

import io.subetha.cxc.boot.WorkReclaimedEvent;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.ReclaimReport;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;

/**
 * Scans each {@code cxc.watchdogs.<name>} watchdog on every tick, with its own grace; when a scan
 * moved work (or freed an abandoned claim), logs it and publishes a {@link WorkReclaimedEvent}.
 * Every participant scans: the watchdog's one-CAS-per-work-id moves make concurrent scans safe.
 */
public final class WatchdogScanner implements TickTask, ApplicationEventPublisherAware {

    private static final Log logger = LogFactory.getLog(WatchdogScanner.class);

    private final Map<String, FailoverWatchdog> watchdogs;
    private final Map<String, Long> graceEpochs;
    private ApplicationEventPublisher publisher = event -> {};

    /**
     * @param watchdogs by bean name
     * @param graceEpochs each watchdog's grace, by bean name
     */
    public WatchdogScanner(Map<String, FailoverWatchdog> watchdogs, Map<String, Long> graceEpochs) {
        this.watchdogs = Map.copyOf(watchdogs);
        this.graceEpochs = Map.copyOf(graceEpochs);
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public void onTick() {
        watchdogs.forEach(
                (name, watchdog) -> {
                    ReclaimReport report = watchdog.scan(graceEpochs.get(name));
                    if (!report.moves().isEmpty() || report.abandonedClaims() > 0) {
                        logger.info("cxc watchdog " + name + " reclaimed work: " + report);
                        publisher.publishEvent(new WorkReclaimedEvent(this, name, report));
                    }
                });
    }

    @Override
    public String toString() {
        return "WatchdogScanner" + watchdogs.keySet();
    }
}
