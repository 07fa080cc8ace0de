package io.subetha.cxc.sample;

import io.subetha.cxc.boot.LeaderContext;
import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.LeadershipLostEvent;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.fanout.ProgressTask;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The host's bookkeeping (GC of old files, snapshot rotation, telemetry flush): scheduled on every
 * instance, run only by the leader, fenced with the term it runs under. It reports the requests
 * every instance logged ({@link RequestLog}), which the starter folds into their count on the
 * leader's ticks, and advances the shared progress task {@code bookkeeping} (declared by {@code
 * cxc.progress-tasks.bookkeeping.total}), which every instance shows in {@code /actuator/cxc} and
 * as {@code cxc.progress{task}}.
 */
@Component
public class BookkeepingJob {

    private static final Logger logger = LoggerFactory.getLogger(BookkeepingJob.class);

    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong reported = new AtomicLong();
    private final EventStateLog<Long, Long> requests;
    private final ObjectProvider<ProgressTask> progress;

    public BookkeepingJob(
            @Qualifier("requests") EventStateLog<Long, Long> requests,
            @Qualifier("bookkeeping") ObjectProvider<ProgressTask> progress) {
        this.requests = requests;
        this.progress = progress;
    }

    @Scheduled(fixedDelayString = "${sample.bookkeeping.interval:2s}")
    @LeaderOnly
    public void runBookkeeping() {
        long term = LeaderContext.requireCurrentTerm(); // the fencing token for downstream writes
        logger.info(
                "bookkeeping run #{} by pid {} in term {}",
                runs.incrementAndGet(),
                ProcessHandle.current().pid(),
                term);
        long folded = requests.readCurrent();
        if (reported.getAndSet(folded) != folded) {
            logger.info("{} requests folded in all", folded);
        }
        progress.ifAvailable(
                task -> {
                    if (!task.read().finished()) {
                        task.advance(1);
                    }
                });
    }

    /** How often this instance ran the job. */
    public long runs() {
        return runs.get();
    }

    @EventListener
    public void onGained(LeadershipGainedEvent event) {
        logger.info("pid {} now leads, term {}", event.pid(), event.term());
    }

    @EventListener
    public void onLost(LeadershipLostEvent event) {
        logger.info("pid {} no longer leads (was term {})", event.pid(), event.term());
    }
}
