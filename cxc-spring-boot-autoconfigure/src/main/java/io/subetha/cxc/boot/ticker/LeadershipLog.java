package io.subetha.cxc.boot.ticker;

import io.subetha.cxc.boot.LeadershipEvent;
import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.LeadershipLostEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationListener;

/**
 * Logs each leadership edge at INFO, so an application's log says who leads and under which term:
 * {@code cxc: pid 4242 leads, term 7} and {@code cxc: pid 4242 no longer leads (term 7)}. A
 * listener of the leadership events rather than a line in the ticker, so it says what the
 * application is told, whichever tier (host or global) publishes them.
 */
public final class LeadershipLog implements ApplicationListener<LeadershipEvent> {

    private static final Log logger = LogFactory.getLog(LeadershipLog.class);

    @Override
    public void onApplicationEvent(LeadershipEvent event) {
        if (event instanceof LeadershipGainedEvent) {
            logger.info("cxc: pid " + event.pid() + " leads, term " + event.term());
        } else if (event instanceof LeadershipLostEvent) {
            logger.info("cxc: pid " + event.pid() + " no longer leads (term " + event.term() + ")");
        }
    }
}
