package io.subetha.cxc.badinput;

import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.PrimitiveKind;
import io.subetha.cxc.ownership.FencedLedger;
import io.subetha.cxc.ownership.SharedLeaderElection;
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
 * @param usePid calls an operation that takes a PID (0 and out-of-range PIDs must be refused)
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
                            (p, pid) -> ((FencedLedger) p).write(1, pid)));

    @Override
    public String toString() {
        return name;
    }
}
