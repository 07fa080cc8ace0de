package io.subetha.cxc.badinput;

import io.subetha.cxc.catalog.PrimitiveCatalog;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.primitive.PrimitiveView;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One primitive as the bad-input catalogue and the fuzz test see it, made from its {@link
 * PrimitiveType} in the registry ({@link PrimitiveCatalog#TYPES}): a new kind goes through every
 * row of both without an edit here. Creating uses the type's defaults; opening accepts any shape;
 * reading the whole state is {@code describe()} and {@code toString()}.
 *
 * @param usePid calls an operation that takes a PID (0 and out-of-range PIDs must be refused), or
 *     {@link #NO_PID_ARGUMENT} for a primitive whose operations take none
 */
record PrimitiveOpener(PrimitiveType<?, ?> type, PidUse usePid) {

    /** An operation taking a PID, on an opened primitive. */
    @FunctionalInterface
    interface PidUse {
        void accept(MappedPrimitive primitive, long pid);
    }

    /** For primitives none of whose operations takes a PID (they use the caller's own). */
    static final PidUse NO_PID_ARGUMENT = (primitive, pid) -> {};

    /** The operations that take a PID argument, by kind; a kind not listed takes none. */
    private static final Map<String, PidUse> PID_USES =
            Map.of(
                    PrimitiveKinds.LEADER_ELECTION.name(),
                    (p, pid) -> ((SharedLeaderElection) p).tryClaimLeadership(pid, 3),
                    PrimitiveKinds.FENCED_LEDGER.name(),
                    (p, pid) -> ((FencedLedger) p).write(1, pid),
                    PrimitiveKinds.HEARTBEAT_TABLE.name(),
                    (p, pid) -> ((HeartbeatTable) p).register(pid),
                    PrimitiveKinds.OWNER_LEASE.name(),
                    (p, pid) -> ((OwnerLease) p).tryAcquire("lease", pid, Duration.ofSeconds(1)),
                    PrimitiveKinds.BACKGROUND_SCHEDULER.name(),
                    (p, pid) -> ((BackgroundScheduler<?, ?>) p).receive(pid));

    static final List<PrimitiveOpener> ALL =
            PrimitiveCatalog.TYPES.stream()
                    .map(
                            t ->
                                    new PrimitiveOpener(
                                            t, PID_USES.getOrDefault(t.name(), NO_PID_ARGUMENT)))
                    .toList();

    String name() {
        return type.name();
    }

    boolean takesPids() {
        return usePid != NO_PID_ARGUMENT;
    }

    /** Creates what the type's defaults refer to in {@code directory} (another kind's file). */
    void prepare(Path directory) {
        type.prepareDefaults(directory);
    }

    MappedPrimitive create(Path path, CxcFileOptions options) {
        return createWithDefaults(type, path, options);
    }

    PrimitiveView open(Path path, CxcFileOptions options) {
        return type.observe(path, options);
    }

    static void readState(ObservedPrimitive primitive) {
        primitive.describe();
        primitive.toString();
        primitive.opCounts();
    }

    private static <P extends MappedPrimitive, S> P createWithDefaults(
            PrimitiveType<P, S> type, Path path, CxcFileOptions options) {
        return type.create(path, type.defaults(), options);
    }

    @Override
    public String toString() {
        return name();
    }
}
