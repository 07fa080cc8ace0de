package io.subetha.cxc.boot.actuate.endpoint;

import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@code /actuator/cxc}: who leads, under which term, how fresh its heartbeat is, every participant
 * in the heartbeat table (alive or not, how far behind), and every registered primitive with this
 * process's op counts. {@code POST} steps this process down if it leads and answers with the new
 * state.
 */
@Endpoint(id = "cxc")
public class CxcEndpoint {

    private final PrimitiveRegistry registry;
    private final @Nullable LeaderTicker ticker;
    private final @Nullable Path directory;
    private final @Nullable CxcParticipants participants;
    private final @Nullable LeadershipTier global;

    /**
     * @param ticker null when this process takes no part in the election
     * @param directory the cxc directory, or null to take the election file's
     * @param participants null when there is no heartbeat table
     */
    public CxcEndpoint(
            PrimitiveRegistry registry,
            @Nullable LeaderTicker ticker,
            @Nullable Path directory,
            @Nullable CxcParticipants participants) {
        this(registry, ticker, directory, participants, null);
    }

    /**
     * @param global the tier above the host election, shown under {@code global}; null when
     *     leadership is host-local
     */
    public CxcEndpoint(
            PrimitiveRegistry registry,
            @Nullable LeaderTicker ticker,
            @Nullable Path directory,
            @Nullable CxcParticipants participants,
            @Nullable LeadershipTier global) {
        this.registry = registry;
        this.ticker = ticker;
        this.directory = directory;
        this.participants = participants;
        this.global = global;
    }

    @ReadOperation
    public CxcDescriptor cxc() {
        LeaderDescriptor leader = ticker == null ? null : describe(ticker);
        List<PrimitiveDescriptor> primitives =
                registry.primitives().stream().map(CxcEndpoint::describe).toList();
        Path dir = directory;
        if (dir == null && ticker != null) {
            dir = ticker.election().file().getParent();
        }
        return new CxcDescriptor(
                Pids.current(),
                dir == null ? null : dir.toString(),
                leader,
                global == null ? null : global.describe(),
                participants == null ? List.of() : participants.participants(),
                primitives);
    }

    @WriteOperation
    public CxcDescriptor stepDown() {
        if (ticker != null) {
            ticker.stepDown();
        }
        return cxc();
    }

    private static LeaderDescriptor describe(LeaderTicker ticker) {
        SharedLeaderElection election = ticker.election();
        LeaderSnapshot snapshot = election.snapshot();
        long self = ticker.participant().pid();
        return new LeaderDescriptor(
                snapshot.leaderPid() == SharedLeaderElection.NO_LEADER
                        ? null
                        : snapshot.leaderPid(),
                snapshot.leaderPid() == self,
                snapshot.term(),
                snapshot.globalEpoch(),
                snapshot.heartbeat(),
                snapshot.heartbeatLag(),
                ticker.participant().graceEpochs(),
                election.file().toString(),
                ticker.tickInterval().toMillis(),
                ticker.isRunning());
    }

    private static PrimitiveDescriptor describe(ObservedPrimitive primitive) {
        return new PrimitiveDescriptor(
                primitive.name(),
                primitive.kind(),
                primitive.file().toString(),
                primitive.opCounts(),
                primitive.describe());
    }

    /**
     * The endpoint's answer.
     *
     * @param leader the host election (tier 1)
     * @param global the tier above it (global leader, its host, the global term, the connection),
     *     null when leadership is host-local
     * @param participants the heartbeat table's held slots, empty when there is none
     */
    public record CxcDescriptor(
            long pid,
            @Nullable String directory,
            @Nullable LeaderDescriptor leader,
            @Nullable Map<String, Object> global,
            List<CxcParticipants.Participant> participants,
            List<PrimitiveDescriptor> primitives) {}

    /**
     * @param pid the leader's PID, null when no process leads
     * @param self whether this process leads
     */
    public record LeaderDescriptor(
            @Nullable Long pid,
            boolean self,
            long term,
            long globalEpoch,
            long heartbeat,
            long heartbeatLagEpochs,
            long graceEpochs,
            String file,
            long tickIntervalMillis,
            boolean ticking) {}

    /**
     * A registered primitive, this process's op counts by op name, and its current state (the
     * primitive's {@code describe()}).
     */
    public record PrimitiveDescriptor(
            String name,
            String kind,
            String file,
            Map<String, Long> ops,
            Map<String, Object> state) {}
}
