package io.subetha.cxc.badinput;

import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.PrimitiveKind;
import io.subetha.cxc.ownership.FencedLedger;
import io.subetha.cxc.ownership.SharedLeaderElection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * One primitive as the bad-input catalogue and the fuzz test see it: how to create a valid file,
 * how to open one, how to read its whole state, and how to call one operation with a PID argument.
 * Adding a primitive to {@link #ALL} puts it through every row of the catalogue.
 *
 * @param name shown in test names
 * @param kind its file kind
 * @param create creates a valid file
 * @param open opens an existing file with the given options
 * @param readState reads every field a user can read; must not throw on a file that opened
 * @param usePid calls an operation that takes a PID (0 and out-of-range PIDs must be refused), or
 *     {@link #NO_PID_ARGUMENT} for a primitive whose operations take none
 */
record PrimitiveOpener(
        String name,
        PrimitiveKind kind,
        BiFunction<Path, CxcFileOptions, AutoCloseable> create,
        BiFunction<Path, CxcFileOptions, AutoCloseable> open,
        Consumer<Object> readState,
        BiConsumerOfPid usePid) {

    /** An operation taking a PID, on an opened primitive. */
    @FunctionalInterface
    interface BiConsumerOfPid {
        void accept(Object primitive, long pid);
    }

    /** For primitives none of whose operations takes a PID (they use the caller's own). */
    static final BiConsumerOfPid NO_PID_ARGUMENT = (primitive, pid) -> {};

    /** Capacity of the catalogue's liveness files: small, and not the default. */
    static final int CAPACITY = 8;

    /**
     * The heartbeat table every catalogue watchdog watches. It lives outside the tests' own
     * directories, whose listings the catalogue compares before and after each open.
     */
    static final HeartbeatTable WATCHED_TABLE = watchedTable();

    private static HeartbeatTable watchedTable() {
        try {
            Path dir = Files.createTempDirectory("cxc-catalogue-watched");
            Path file = dir.resolve("participants.cxc");
            dir.toFile().deleteOnExit();
            file.toFile().deleteOnExit();
            return HeartbeatTable.create(file, CAPACITY);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    boolean takesPids() {
        return usePid != NO_PID_ARGUMENT;
    }

    static final List<PrimitiveOpener> ALL =
            List.of(
                    new PrimitiveOpener(
                            "leader-election",
                            PrimitiveKind.LEADER_ELECTION,
                            SharedLeaderElection::create,
                            SharedLeaderElection::open,
                            p -> {
                                SharedLeaderElection e = (SharedLeaderElection) p;
                                e.snapshot();
                                e.currentLeader();
                                e.electionTerm();
                                e.leaderStatus();
                                e.toString();
                            },
                            (p, pid) -> ((SharedLeaderElection) p).tryClaimLeadership(pid, 3)),
                    new PrimitiveOpener(
                            "fenced-ledger",
                            PrimitiveKind.FENCED_LEDGER,
                            FencedLedger::create,
                            FencedLedger::open,
                            p -> {
                                FencedLedger l = (FencedLedger) p;
                                l.highestTerm();
                                l.holderPid();
                                l.acceptedWrites();
                                l.rejectedStaleWrites();
                                l.rejectedConflictingWrites();
                                l.toString();
                            },
                            (p, pid) -> ((FencedLedger) p).write(1, pid)),
                    new PrimitiveOpener(
                            "heartbeat-table",
                            PrimitiveKind.HEARTBEAT_TABLE,
                            (path, options) -> HeartbeatTable.create(path, CAPACITY, options),
                            (path, options) -> HeartbeatTable.open(path, CAPACITY, options),
                            p -> {
                                HeartbeatTable t = (HeartbeatTable) p;
                                t.scan();
                                t.liveSlots(3);
                                for (int slot = 0; slot < t.capacity(); slot++) {
                                    t.snapshot(slot);
                                    t.status(slot, 3);
                                }
                                t.globalEpoch();
                                t.toString();
                            },
                            (p, pid) -> ((HeartbeatTable) p).register(pid)),
                    new PrimitiveOpener(
                            "failover-watchdog",
                            PrimitiveKind.FAILOVER_WATCHDOG,
                            (path, options) ->
                                    FailoverWatchdog.create(path, WATCHED_TABLE, 4, options),
                            (path, options) -> FailoverWatchdog.open(path, WATCHED_TABLE, options),
                            p -> {
                                FailoverWatchdog w = (FailoverWatchdog) p;
                                w.assignments();
                                for (int slot = 0; slot < w.capacity(); slot++) {
                                    w.workOf(slot);
                                }
                                w.ownerOf(42);
                                w.toString();
                            },
                            NO_PID_ARGUMENT),
                    new PrimitiveOpener(
                            "epoch-barrier",
                            PrimitiveKind.EPOCH_BARRIER,
                            (path, options) ->
                                    EpochBarrier.create(
                                            path,
                                            CAPACITY,
                                            EpochBarrier.DEFAULT_HEARTBEAT_INTERVAL,
                                            EpochBarrier.DEFAULT_BARRIER_GRACE_EPOCHS,
                                            options),
                            (path, options) -> EpochBarrier.open(path, CAPACITY, options),
                            p -> {
                                EpochBarrier b = (EpochBarrier) p;
                                b.currentEpoch();
                                b.livePeerCount();
                                b.participants();
                                b.toString();
                            },
                            NO_PID_ARGUMENT));

    @Override
    public String toString() {
        return name;
    }
}
