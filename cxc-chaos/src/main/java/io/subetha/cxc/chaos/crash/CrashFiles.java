package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import java.nio.file.Path;

/**
 * The run's files in one directory, each opened (or created, race-safe) through its type with the
 * run's settings, as every process of the run opens them.
 */
public record CrashFiles(Path dir, CrashSettings settings) {

    /** The one lease name every worker competes for; its tokens go to {@link #ledger()}. */
    public static final String LEASE_NAME = "crash-lease";

    /** The event log's state codec. */
    public static final FixedCodec<Fold> FOLD = FixedCodec.record(Fold.class);

    public BackgroundScheduler<Long, Long> scheduler() {
        return BackgroundScheduler.TYPE.openOrCreate(
                dir.resolve("scheduler.cxc"),
                new BackgroundScheduler.Settings(
                        settings.schedulerCapacity(),
                        FixedCodec.INT64,
                        FixedCodec.INT64,
                        settings.grace()));
    }

    public PriorityFanout<Long> fanout() {
        return PriorityFanout.TYPE.openOrCreate(
                dir.resolve("fanout.cxc"),
                new PriorityFanout.Settings(
                        settings.fanoutCapacity(), FixedCodec.INT64, settings.grace()));
    }

    public EventStateLog<Long, Fold> events() {
        return EventStateLog.TYPE.openOrCreate(
                dir.resolve("events.cxc"),
                new EventStateLog.Settings(
                        settings.eventCapacity(), FixedCodec.INT64, FOLD, Fold.EMPTY));
    }

    public OwnerLease lease() {
        return OwnerLease.TYPE.openOrCreate(dir.resolve("lease.cxc"), new OwnerLease.Settings(4));
    }

    public FencedLedger ledger() {
        return FencedLedger.TYPE.openOrCreate(
                dir.resolve("ledger.cxc"), new FencedLedger.Settings());
    }

    public SharedRegion region() {
        return SharedRegion.TYPE.openOrCreate(
                dir.resolve("region.cxc"), new SharedRegion.Settings(settings.regionBytes()));
    }
}
