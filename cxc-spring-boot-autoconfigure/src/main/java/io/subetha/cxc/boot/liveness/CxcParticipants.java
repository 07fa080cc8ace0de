package io.subetha.cxc.boot.liveness;

import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.liveness.HeartbeatSnapshot;
import io.subetha.cxc.liveness.HeartbeatTable;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Everyone in the participants' heartbeat table ({@code cxc.heartbeat.*}) as this process sees it:
 * which slots are held, by which PID, how far behind their beats are, whether each is alive (the
 * table's own {@link HeartbeatTable#status judgement}: beat within the grace and process not known
 * to be dead) and whether it leads.
 */
public final class CxcParticipants {

    private final HeartbeatTable table;
    private final long graceEpochs;
    private final @Nullable SharedLeaderElection election;

    /**
     * @param election the election whose leader to mark, or null
     */
    public CxcParticipants(
            HeartbeatTable table, long graceEpochs, @Nullable SharedLeaderElection election) {
        this.table = table;
        this.graceEpochs = graceEpochs;
        this.election = election;
    }

    /** Every held slot, in slot order. Probes each holder's process (~10 µs each). */
    public List<Participant> participants() {
        long leader =
                election == null
                        ? SharedLeaderElection.NO_LEADER
                        : election.currentLeader().orElse(SharedLeaderElection.NO_LEADER);
        List<Participant> participants = new ArrayList<>();
        for (HeartbeatSnapshot slot : table.scan()) {
            participants.add(
                    new Participant(
                            slot.slot(),
                            slot.pid(),
                            slot.lastBeatEpoch(),
                            slot.lag(),
                            table.status(slot, graceEpochs) == OwnerStatus.LIVE,
                            leader != SharedLeaderElection.NO_LEADER && slot.pid() == leader));
        }
        return participants;
    }

    /** How many participants are alive. */
    public int liveCount() {
        return table.liveSlots(graceEpochs).size();
    }

    public HeartbeatTable table() {
        return table;
    }

    /** Epochs a beat may lag before its participant counts as not alive. */
    public long graceEpochs() {
        return graceEpochs;
    }

    /**
     * One held slot of the heartbeat table.
     *
     * @param lastBeat the table's global epoch at the holder's last beat
     * @param lagEpochs how far that is behind the table's global epoch now
     * @param alive whether the holder is alive: beat within the grace, process not known dead
     * @param leader whether the holder's PID leads the election
     */
    public record Participant(
            int slot, long pid, long lastBeat, long lagEpochs, boolean alive, boolean leader) {}
}
