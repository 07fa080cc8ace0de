package io.subetha.cxc.boot.liveness;

import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatSnapshot;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Everyone in the participants' heartbeat table ({@code cxc.heartbeat.*}) as this process sees it:
 * which slots are held, by which PID, how far behind their beats are, whether each is alive (the
 * table's own {@link HeartbeatTable#status judgement}: beat within the grace and process not known
 * to be dead) and whether it leads; and this process's own slot ({@link #mySlot()}), with a
 * declared watchdog's work assigned to it without the caller knowing the slot ({@link #assign}).
 */
public final class CxcParticipants {

    private final HeartbeatTable table;
    private final long graceEpochs;
    private final @Nullable SharedLeaderElection election;
    private final @Nullable ParticipantRegistration registration;

    /**
     * @param election the election whose leader to mark, or null
     */
    public CxcParticipants(
            HeartbeatTable table, long graceEpochs, @Nullable SharedLeaderElection election) {
        this(table, graceEpochs, election, null);
    }

    /**
     * @param registration this process's registration in {@code table}, or null when this view is
     *     only an observer's (then {@link #mySlot()} is -1)
     */
    public CxcParticipants(
            HeartbeatTable table,
            long graceEpochs,
            @Nullable SharedLeaderElection election,
            @Nullable ParticipantRegistration registration) {
        this.table = table;
        this.graceEpochs = graceEpochs;
        this.election = election;
        this.registration = registration;
    }

    /**
     * This process's slot in the table, or -1 while it holds none (before start, after stop, or for
     * the one tick between losing its slot after a long pause and registering again). The slot can
     * change only that way: after such a pause another process's scan has already moved this
     * process's watchdog work away, so work is never stranded on an old slot.
     */
    public int mySlot() {
        ParticipantRegistration own = registration;
        return own == null ? -1 : own.slot();
    }

    /** This process as the table shows it, empty while it holds no slot. */
    public Optional<Participant> self() {
        int slot = mySlot();
        if (slot < 0) {
            return Optional.empty();
        }
        return participants().stream().filter(p -> p.slot() == slot).findFirst();
    }

    /**
     * Assigns {@code workId} in {@code watchdog} to this process's slot: if this process dies, a
     * live participant's scan takes the work over.
     *
     * @throws IllegalArgumentException if {@code watchdog} is not over the participants' table
     * @throws IllegalStateException if this process holds no slot right now, or the id is owned
     * @see FailoverWatchdog#assign(int, long)
     */
    public void assign(FailoverWatchdog watchdog, long workId) {
        watchdog.assign(requireOwnSlotIn(watchdog), workId);
    }

    /**
     * Releases {@code workId}, finished by this process.
     *
     * @return false if this process does not own it (never assigned, already completed, or moved to
     *     another participant by a scan: then that one completes it)
     * @see FailoverWatchdog#complete(int, long)
     */
    public boolean complete(FailoverWatchdog watchdog, long workId) {
        return watchdog.complete(requireOwnSlotIn(watchdog), workId);
    }

    /**
     * The work ids of {@code watchdog} this process owns now, in pool order: after a restart, what
     * it took over or kept; empty while it holds no slot.
     */
    public List<Long> myWork(FailoverWatchdog watchdog) {
        requireSameTable(watchdog);
        int slot = mySlot();
        return slot < 0 ? List.of() : watchdog.workOf(slot);
    }

    private int requireOwnSlotIn(FailoverWatchdog watchdog) {
        requireSameTable(watchdog);
        int slot = mySlot();
        if (slot < 0) {
            throw new IllegalStateException(
                    "pid "
                            + Pids.current()
                            + " holds no slot of "
                            + table.file()
                            + " right now (not started, stopping, or registering again after a"
                            + " long pause); try again on the next tick");
        }
        return slot;
    }

    private void requireSameTable(FailoverWatchdog watchdog) {
        Path watched = watchdog.heartbeatTable().file().toAbsolutePath().normalize();
        if (!watched.equals(table.file().toAbsolutePath().normalize())) {
            throw new IllegalArgumentException(
                    watchdog.file()
                            + " watches "
                            + watched
                            + ", not the participants' table "
                            + table.file()
                            + " this process holds a slot in: open it over that table (a"
                            + " cxc.watchdogs.<name> declaration does)");
        }
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
