package io.subetha.cxc.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.collections.SharedLinkedList;
import io.subetha.cxc.collections.SharedVec;
import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.eventlog.NamedReaders;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.fanout.ProgressTask;
import io.subetha.cxc.graph.SharedGraph;
import io.subetha.cxc.graph.SharedTopologyMap;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.resolution.CascadeSharedLevel;
import io.subetha.cxc.resolution.SharedAsyncPointer;
import io.subetha.cxc.resolution.SharedUniversal;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.JobResult;
import io.subetha.cxc.values.SharedNaNTaggedValue;
import io.subetha.cxc.values.SharedNaNValue;
import io.subetha.cxc.versioned.SharedTimePointTile;
import io.subetha.cxc.versioned.SharedVersionedChain;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The main operations of every kind, on a handle opened with the type's default settings (whose
 * typed kinds carry 8-byte {@code long} codecs): what the operating fuzz test runs against damaged
 * bodies. Where a wrong answer is recognisable without a model (a negative job id, more items than
 * asked for) the operation checks it.
 */
final class PrimitiveOperations {

    /**
     * One operation of a primitive, by name, with the exceptions its javadoc gives as answers for a
     * state the file may really be in (a task that already ended): a damaged body may put it there.
     */
    record Operation(String name, Use use, List<Class<? extends Exception>> documented) {
        @Override
        public String toString() {
            return name;
        }
    }

    @FunctionalInterface
    interface Use {
        void accept(MappedPrimitive primitive) throws Exception;
    }

    private static final long PID = Pids.current();
    private static final Duration SHORT = Duration.ofMillis(20);

    private PrimitiveOperations() {}

    static Operation op(String name, Use use) {
        return new Operation(name, use, List.of());
    }

    static Operation op(String name, Use use, Class<? extends Exception> documented) {
        return new Operation(name, use, List.of(documented));
    }

    /** By kind name; {@code PrimitiveOperationsTest} checks every kind has its row. */
    static final Map<String, List<Operation>> BY_KIND =
            Map.ofEntries(
                    Map.entry(
                            PrimitiveKinds.LEADER_ELECTION.name(),
                            List.of(
                                    op("tickEpoch", p -> election(p).tickEpoch()),
                                    op(
                                            "tryClaimLeadership",
                                            p -> election(p).tryClaimLeadership(PID, 3)),
                                    op("beatAsLeader", p -> election(p).beatAsLeader(PID)),
                                    op(
                                            "registerCandidate",
                                            p -> election(p).registerCandidate(PID, 3)),
                                    op("candidates", p -> election(p).candidates()),
                                    op("snapshot", p -> election(p).snapshot()),
                                    op("stepDown", p -> election(p).stepDown(PID)))),
                    Map.entry(
                            PrimitiveKinds.HEARTBEAT_TABLE.name(),
                            List.of(
                                    op(
                                            "register/beat/unregister",
                                            p -> {
                                                HeartbeatTable t = (HeartbeatTable) p;
                                                int slot = t.register(PID);
                                                t.beat(slot);
                                                t.unregister(slot);
                                            }),
                                    op(
                                            "tickGlobalEpoch",
                                            p -> ((HeartbeatTable) p).tickGlobalEpoch()),
                                    op("liveSlots", p -> ((HeartbeatTable) p).liveSlots(3)))),
                    Map.entry(
                            PrimitiveKinds.FAILOVER_WATCHDOG.name(),
                            List.of(
                                    op(
                                            "assign/complete",
                                            p -> {
                                                FailoverWatchdog w = (FailoverWatchdog) p;
                                                HeartbeatTable table = w.heartbeatTable();
                                                int slot = table.register(PID);
                                                try {
                                                    w.assign(slot, 7);
                                                    w.complete(slot, 7);
                                                } finally {
                                                    table.unregister(slot);
                                                }
                                            },
                                            IllegalStateException.class),
                                    op("assignments", p -> ((FailoverWatchdog) p).assignments()),
                                    op("ownerOf", p -> ((FailoverWatchdog) p).ownerOf(7)))),
                    Map.entry(
                            PrimitiveKinds.EPOCH_BARRIER.name(),
                            List.of(
                                    op(
                                            "join/beat/await/leave",
                                            p -> {
                                                EpochBarrier b = (EpochBarrier) p;
                                                int epoch = b.join();
                                                b.beat();
                                                try {
                                                    b.await(epoch, SHORT);
                                                } finally {
                                                    b.leave();
                                                }
                                            }),
                                    op("livePeerCount", p -> ((EpochBarrier) p).livePeerCount()))),
                    Map.entry(
                            PrimitiveKinds.FENCED_LEDGER.name(),
                            List.of(
                                    op("write", p -> ((FencedLedger) p).write(5, PID)),
                                    op("highestTerm", p -> ((FencedLedger) p).highestTerm()))),
                    Map.entry(
                            PrimitiveKinds.OWNER_LEASE.name(),
                            List.of(
                                    op(
                                            "tryAcquire/extend/release",
                                            p -> {
                                                OwnerLease l = (OwnerLease) p;
                                                Optional<OwnerLease.Lease> lease =
                                                        l.tryAcquire(
                                                                "fuzz", PID, Duration.ofSeconds(5));
                                                if (lease.isPresent()) {
                                                    l.extend(lease.get(), Duration.ofSeconds(5));
                                                    l.release(lease.get());
                                                }
                                            }),
                                    op("holder", p -> ((OwnerLease) p).holder("fuzz")))),
                    Map.entry(
                            PrimitiveKinds.EVENT_STATE_LOG.name(),
                            List.of(
                                    op("tryEmit", p -> eventLog(p).tryEmit(3L)),
                                    op(
                                            "drainAndFold",
                                            p ->
                                                    assertThat(eventLog(p).drainAndFold(Long::sum))
                                                            .isNotNegative()),
                                    op("readCurrent", p -> eventLog(p).readCurrent()),
                                    op(
                                            "reader.poll",
                                            p -> eventLog(p).reader(0).poll(e -> {}, 64)))),
                    Map.entry(
                            PrimitiveKinds.EVENT_LOG_READERS.name(),
                            List.of(
                                    op(
                                            "claim/save/close",
                                            p -> {
                                                try (NamedReaders.Seat seat =
                                                        readers(p)
                                                                .claim("copy-1", () -> 0, SHORT)) {
                                                    seat.save(seat.position() + 1);
                                                }
                                            }),
                                    op("readers", p -> readers(p).readers()))),
                    Map.entry(
                            PrimitiveKinds.VERSIONED_CHAIN.name(),
                            List.of(
                                    op("push", p -> chain(p).push(9L)),
                                    op("readAt", p -> chain(p).readAt(chain(p).currentVersion())),
                                    op("lookup", p -> chain(p).lookup(1)))),
                    Map.entry(
                            PrimitiveKinds.TIME_POINT_TILE.name(),
                            List.of(
                                    op("record", p -> tile(p).record(3, 9L)),
                                    op("valueAt", p -> tile(p).valueAt(5)),
                                    op("recordedAt", p -> tile(p).recordedAt(3)))),
                    Map.entry(
                            PrimitiveKinds.PRIORITY_FANOUT.name(),
                            List.of(
                                    op("trySubmit", p -> fanout(p).trySubmit(2, 5L)),
                                    op(
                                            "drainHighest",
                                            p ->
                                                    assertThat(fanout(p).drainHighest(8))
                                                            .hasSizeLessThanOrEqualTo(8)),
                                    op(
                                            "drainPriority",
                                            p ->
                                                    assertThat(fanout(p).drainPriority(0, 8))
                                                            .hasSizeLessThanOrEqualTo(8)),
                                    op("scan", p -> fanout(p).scan()),
                                    op("depth", p -> fanout(p).depth(1)))),
                    Map.entry(
                            PrimitiveKinds.PROGRESS_TASK.name(),
                            List.of(
                                    op(
                                            "advance",
                                            p -> ((ProgressTask) p).advance(1),
                                            IllegalStateException.class),
                                    op("read", p -> ((ProgressTask) p).read()),
                                    op(
                                            "complete",
                                            p -> ((ProgressTask) p).complete(),
                                            IllegalStateException.class))),
                    Map.entry(
                            PrimitiveKinds.BACKGROUND_SCHEDULER.name(),
                            List.of(
                                    op(
                                            "trySubmit",
                                            p ->
                                                    assertThat(scheduler(p).trySubmit(4L))
                                                            .isGreaterThanOrEqualTo(-1)),
                                    op(
                                            "receive/complete",
                                            p -> {
                                                var s = scheduler(p);
                                                var job = s.receive(PID);
                                                if (job.isPresent()) {
                                                    assertThat(job.get().id()).isNotNegative();
                                                    s.complete(job.get(), 8L);
                                                }
                                            }),
                                    op(
                                            "poll",
                                            p -> {
                                                for (JobResult<Long> r :
                                                        scheduler(p).collector().poll(16)) {
                                                    assertThat(r.jobId()).isNotNegative();
                                                }
                                            }),
                                    op(
                                            "pollAndAcknowledge",
                                            p -> {
                                                List<JobResult<Long>> polled =
                                                        scheduler(p).collector().poll(16);
                                                scheduler(p).collector().acknowledge(polled);
                                            }),
                                    op("take", p -> scheduler(p).collector().take(16)),
                                    op("result", p -> scheduler(p).collector().result(3)),
                                    op("watchdogScan", p -> scheduler(p).watchdogScan()),
                                    op("counts", p -> scheduler(p).counts()))),
                    Map.entry(
                            PrimitiveKinds.SHARED_GRAPH.name(),
                            List.of(
                                    op(
                                            "addNode/addEdge",
                                            p -> {
                                                var g = graph(p);
                                                int a = g.addNode(1L);
                                                int b = g.addNode(2L);
                                                g.addEdge(a, b, 3L);
                                            }),
                                    op(
                                            "neighbors",
                                            p -> graph(p).neighbors(0),
                                            IllegalArgumentException.class),
                                    op(
                                            "node",
                                            p -> graph(p).node(0),
                                            IllegalArgumentException.class),
                                    op(
                                            "removeEdge",
                                            p -> graph(p).removeEdge(0, 1),
                                            IllegalArgumentException.class))),
                    Map.entry(
                            PrimitiveKinds.TOPOLOGY_MAP.name(),
                            List.of(
                                    op("record", p -> ((SharedTopologyMap) p).record(1, 2, 5)),
                                    op("fanOut", p -> ((SharedTopologyMap) p).fanOut(1)),
                                    op("fanIn", p -> ((SharedTopologyMap) p).fanIn(2)),
                                    op("recommend", p -> ((SharedTopologyMap) p).recommend(1)),
                                    op(
                                            "advanceEpoch",
                                            p -> ((SharedTopologyMap) p).advanceEpoch()))),
                    Map.entry(
                            PrimitiveKinds.CASCADE_SHARED_LEVEL.name(),
                            List.of(
                                    op("put", p -> cascade(p).put(11L, 12L)),
                                    op("get", p -> cascade(p).get(11L)),
                                    op("insert", p -> cascade(p).insert(13L, 14L)),
                                    op("remove", p -> cascade(p).remove(11L)))),
                    Map.entry(
                            PrimitiveKinds.ASYNC_POINTER.name(),
                            List.of(
                                    op("tryGet", p -> pointer(p).tryGet()),
                                    op("getOrFetch", p -> pointer(p).getOrFetch(() -> 6L, SHORT)),
                                    op("reset", p -> pointer(p).reset()))),
                    Map.entry(
                            PrimitiveKinds.SHARED_UNIVERSAL.name(),
                            List.of(
                                    op("insert", p -> universal(p).insert(21L)),
                                    op("containsKey", p -> universal(p).containsKey(21L)),
                                    op("keys", p -> universal(p).keys()),
                                    op("remove", p -> universal(p).remove(21L)))),
                    Map.entry(
                            PrimitiveKinds.SHARED_REGION.name(),
                            List.of(
                                    op(
                                            "allocate/set/get/free",
                                            p -> {
                                                SharedRegion r = (SharedRegion) p;
                                                long handle = r.allocate(24);
                                                r.set(handle, new byte[24]);
                                                r.get(handle);
                                                r.free(handle);
                                            }),
                                    op("reclaimDead", p -> ((SharedRegion) p).reclaimDead()),
                                    op("freeList", p -> ((SharedRegion) p).freeList()),
                                    op(
                                            "largestFreeBlock",
                                            p -> ((SharedRegion) p).largestFreeBlock()))),
                    Map.entry(
                            PrimitiveKinds.NAN_VALUE.name(),
                            List.of(
                                    op(
                                            "set/get/compareAndSet",
                                            p -> {
                                                SharedNaNValue v = (SharedNaNValue) p;
                                                long old = v.get(1);
                                                v.compareAndSet(1, old, SharedNaNValue.box(3));
                                                v.set(2, SharedNaNValue.box(2.5));
                                            }))),
                    Map.entry(
                            PrimitiveKinds.NAN_TAGGED_VALUE.name(),
                            List.of(
                                    op(
                                            "set/get/compareAndSet",
                                            p -> {
                                                SharedNaNTaggedValue v = (SharedNaNTaggedValue) p;
                                                long old = v.get(1);
                                                v.compareAndSet(
                                                        1, old, SharedNaNTaggedValue.box(3, 4));
                                                v.set(2, 5, 6);
                                            }))),
                    Map.entry(
                            PrimitiveKinds.SHARED_VEC.name(),
                            List.of(
                                    op("push", p -> vec(p).push(31L)),
                                    op("get", p -> vec(p).get(0), IndexOutOfBoundsException.class),
                                    op(
                                            "set",
                                            p -> vec(p).set(0, 32L),
                                            IndexOutOfBoundsException.class),
                                    op("pop", p -> vec(p).pop()),
                                    op("len", p -> vec(p).len()))),
                    Map.entry(
                            PrimitiveKinds.SHARED_LINKED_LIST.name(),
                            List.of(
                                    op("pushHead", p -> list(p).pushHead(41L)),
                                    op("pushTail", p -> list(p).pushTail(42L)),
                                    op("popHead", p -> list(p).popHead()),
                                    op("popTail", p -> list(p).popTail()),
                                    op("size", p -> list(p).size()))),
                    Map.entry(
                            PrimitiveKinds.PASS_REGISTRY.name(),
                            List.of(
                                    op(
                                            "register/execute/unregister",
                                            p -> {
                                                PassRegistry r = (PassRegistry) p;
                                                r.register(77, args -> args);
                                                try {
                                                    r.execute(
                                                            77,
                                                            new byte[] {1},
                                                            Duration.ofMillis(200));
                                                } finally {
                                                    r.unregister(77);
                                                }
                                            }),
                                    op(
                                            "registeredCount",
                                            p -> ((PassRegistry) p).registeredCount()))));

    @SuppressWarnings("unchecked")
    private static SharedLeaderElection election(MappedPrimitive p) {
        return (SharedLeaderElection) p;
    }

    private static NamedReaders readers(MappedPrimitive p) {
        return (NamedReaders) p;
    }

    @SuppressWarnings("unchecked")
    private static EventStateLog<Long, Long> eventLog(MappedPrimitive p) {
        return (EventStateLog<Long, Long>) p;
    }

    @SuppressWarnings("unchecked")
    private static SharedVersionedChain<Long> chain(MappedPrimitive p) {
        return (SharedVersionedChain<Long>) p;
    }

    @SuppressWarnings("unchecked")
    private static SharedTimePointTile<Long> tile(MappedPrimitive p) {
        return (SharedTimePointTile<Long>) p;
    }

    @SuppressWarnings("unchecked")
    private static PriorityFanout<Long> fanout(MappedPrimitive p) {
        return (PriorityFanout<Long>) p;
    }

    @SuppressWarnings("unchecked")
    private static BackgroundScheduler<Long, Long> scheduler(MappedPrimitive p) {
        return (BackgroundScheduler<Long, Long>) p;
    }

    @SuppressWarnings("unchecked")
    private static SharedGraph<Long, Long> graph(MappedPrimitive p) {
        return (SharedGraph<Long, Long>) p;
    }

    @SuppressWarnings("unchecked")
    private static CascadeSharedLevel<Long, Long> cascade(MappedPrimitive p) {
        return (CascadeSharedLevel<Long, Long>) p;
    }

    @SuppressWarnings("unchecked")
    private static SharedAsyncPointer<Long> pointer(MappedPrimitive p) {
        return (SharedAsyncPointer<Long>) p;
    }

    @SuppressWarnings("unchecked")
    private static SharedUniversal<Long> universal(MappedPrimitive p) {
        return (SharedUniversal<Long>) p;
    }

    @SuppressWarnings("unchecked")
    private static SharedVec<Long> vec(MappedPrimitive p) {
        return (SharedVec<Long>) p;
    }

    @SuppressWarnings("unchecked")
    private static SharedLinkedList<Long> list(MappedPrimitive p) {
        return (SharedLinkedList<Long>) p;
    }
}
