package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.fanout.FanoutClaim;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobResult;
import java.util.Optional;

/**
 * What a survivor does once every worker is dead, as history 0: the scheduler's watchdog puts the
 * dead workers' jobs back, which it then runs and collects with every result left; the fan-out's
 * scan returns the dead consumers' claims, which it claims and acknowledges with every item left;
 * it drains the event log (the dead emitters' reservations become gaps); it reclaims the dead
 * allocators' blocks. Every operation goes to the history like a worker's, so the check treats them
 * alike.
 */
public final class CrashRecovery {

    /** Worker number of the recovery's history. */
    public static final int WORKER = 0;

    private static final int ROUNDS = 1_000_000;

    private CrashRecovery() {}

    public static void recover(CrashFiles files) {
        try (History history = History.open(files.dir(), WORKER)) {
            try (BackgroundScheduler<Long, Long> scheduler = files.scheduler()) {
                scheduler(scheduler, history);
            }
            try (PriorityFanout<Long> fanout = files.fanout()) {
                fanout(fanout, history);
            }
            try (EventStateLog<Long, Fold> events = files.events()) {
                history.log(Family.EVENTS, "drain-begin");
                int folded = events.drainAndFold(Fold::with);
                Fold state = events.readCurrent();
                history.log(Family.EVENTS, "drained", folded, state.count(), state.hash());
            }
            try (SharedRegion region = files.region()) {
                history.log(Family.REGION, "reclaim-begin");
                history.log(Family.REGION, "reclaimed", region.reclaimDead());
            }
        }
    }

    private static void scheduler(BackgroundScheduler<Long, Long> scheduler, History history) {
        scheduler.watchdogScan();
        long pid = Pids.current();
        for (int i = 0; i < ROUNDS; i++) {
            Optional<Job<Long>> received = scheduler.receive(pid);
            if (received.isEmpty()) {
                break;
            }
            Job<Long> job = received.get();
            history.log(Family.SCHEDULER, "received", job.id(), job.attempt(), job.payload());
            history.log(Family.SCHEDULER, "complete-begin", job.id(), job.attempt());
            boolean recorded = scheduler.complete(job, SchedulerLoad.resultOf(job.payload()));
            history.log(Family.SCHEDULER, "completed", job.id(), job.attempt(), recorded);
        }
        for (int i = 0; i < ROUNDS; i++) {
            history.log(Family.SCHEDULER, "collect-begin");
            var results = scheduler.collector().take(1);
            if (results.isEmpty()) {
                history.log(Family.SCHEDULER, "collected-none");
                break;
            }
            for (JobResult<Long> r : results) {
                history.log(Family.SCHEDULER, "collected", r.jobId(), r.attempt(), r.result());
            }
        }
    }

    private static void fanout(PriorityFanout<Long> fanout, History history) {
        fanout.scan();
        for (int i = 0; i < ROUNDS; i++) {
            FanoutClaim<Long> claim = fanout.claimHighest(1);
            if (claim.isEmpty()) {
                break;
            }
            long item = claim.items().get(0);
            history.log(Family.FANOUT, "claimed", claim.priority(), item);
            history.log(Family.FANOUT, "ack-begin", item);
            history.log(Family.FANOUT, "acked", item, claim.ack());
        }
    }
}
