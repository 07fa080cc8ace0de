package io.subetha.cxc.election;

import static io.subetha.cxc.election.LeaderElectionDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.internal.EpochPacer;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.HeaderDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;

/**
 * One mapped election file, and where its work went once it stopped being the election at its path.
 * A handle maps an inode, not a path: when the file is deleted, replaced or truncated under a
 * running process, {@link #retire} sets the orphan's leader word to {@link
 * LeaderElectionDescriptor#RETIRED_WORD} (which no claim replaces), and from {@link #forwardTo} on
 * every call that does not find the caller leading here goes on to the file now at the path ({@link
 * #live}). A retired file opened again at its own path is revived ({@link #reviveIfRetired}).
 *
 * <p>Holds the parts that run on the mapping: its {@link LeaderSeat}, its {@link CandidateSeats}
 * and its {@link EpochPacer}.
 */
final class ElectionFile {

    private static final System.Logger logger = System.getLogger(ElectionFile.class.getName());

    private final Path path;
    private final LeaderSeat seat;
    private final CandidateSeats candidates;
    private final EpochPacer pacer;
    private final long incarnation;

    /** The file now at the path, once this one was replaced. */
    private volatile @Nullable ElectionFile successor;

    /** Set once this file is known not to be the election at its path any more. */
    private volatile boolean retired;

    /** Set once this mapping is known to fault (the file was truncated under it). */
    private volatile boolean damaged;

    /**
     * @param writable whether this mapping takes part: it then revives a retired file still at its
     *     path and frees the seat of a dead process that had this process's PID
     */
    ElectionFile(Path path, AtomicBuffer body, boolean writable) {
        this.path = path;
        this.seat = new LeaderSeat(body, path);
        this.candidates = new CandidateSeats(body);
        this.pacer = new EpochPacer(body, LAST_TICK_NANOS_OFFSET);
        this.incarnation = body.getLongAcquire(INCARNATION_OFFSET);
        if (writable) {
            reviveIfRetired();
            seat.releaseSeatOfTheDeadHolderOfOurPid();
        }
    }

    LeaderSeat seat() {
        return seat;
    }

    CandidateSeats candidates() {
        return candidates;
    }

    EpochPacer pacer() {
        return pacer;
    }

    long incarnation() {
        return incarnation;
    }

    boolean isRetired() {
        return retired;
    }

    boolean isDamaged() {
        return damaged;
    }

    // --------------------------------------------------------------------------- forwarding

    /**
     * The file serving the election now: this one, or the one that replaced it (and so on).
     *
     * @throws CxcFormatException if this file was retired and nothing replaced it yet
     */
    ElectionFile live() {
        ElectionFile at = last();
        if (at.retired) {
            throw at.noLongerTheElection();
        }
        return at;
    }

    /** The end of the chain of replacements: a file not retired, or retired with no successor. */
    ElectionFile last() {
        ElectionFile at = this;
        while (at.retired) {
            ElectionFile next = at.successor;
            if (next == null) {
                return at;
            }
            at = next;
        }
        return at;
    }

    CxcFormatException noLongerTheElection() {
        return new CxcFormatException(
                "the leader-election file "
                        + path
                        + " is no longer the election this handle mapped (it was deleted,"
                        + " replaced or truncated under a running process); this process does"
                        + " not lead. Its participant re-joins the file at the path on its next"
                        + " tick.");
    }

    /** Forwards every later call to {@code next}, the file now at the path. Only after retire. */
    void forwardTo(ElectionFile next) {
        successor = next;
    }

    /**
     * The term {@code pid} leads under in a file that replaced this one, or -1: the off-fast-path
     * half of a leadership check on a retired handle.
     */
    long termIfLeaderInSuccessors(long pid) {
        for (ElectionFile next = successor; next != null; next = next.successor) {
            long word = next.damaged ? RETIRED_WORD : next.seat.word();
            if (leaderPid(word) == pid && pid != NO_LEADER) {
                return term(word);
            }
        }
        return -1;
    }

    /**
     * The claim after the fast path: on this file, or on the one that replaced it if this one is
     * retired (where the caller may lead already).
     */
    boolean claim(long myPid, long graceEpochs, boolean preempt) {
        if (retired) {
            return termIfLeaderInSuccessors(myPid) >= 0
                    || claimInSuccessor(myPid, graceEpochs, preempt);
        }
        return seat.claim(myPid, graceEpochs, preempt);
    }

    private boolean claimInSuccessor(long myPid, long graceEpochs, boolean preempt) {
        ElectionFile next = successor;
        return next != null && next.claim(myPid, graceEpochs, preempt);
    }

    // --------------------------------------------------------------------- retire and revive

    /**
     * Stops this mapping from ever leading again: its leader word, if it names {@code myPid} or no
     * one, becomes the retired word (one CAS from exactly the word read, so a rival still on the
     * orphan who claims first keeps its claim until its own participant notices). With {@code
     * truncated} the mapping is not touched (it would fault), only marked damaged.
     *
     * @return the term this PID led under in the orphan, or -1
     */
    long retire(long myPid, boolean truncated) {
        retired = true; // first: every call that misses from now on forwards or refuses
        if (truncated) {
            damaged = true;
            return -1;
        }
        try {
            return seat.retire(myPid);
        } catch (InternalError fault) { // truncated after all: reads past its end fault
            damaged = true;
            return -1;
        }
    }

    /**
     * A retired file opened for writing is in use again: whoever opens a path means the file there,
     * and a participant that retired it may have raced a replacement (an open that mapped the new
     * file while it judged the old one) or the file was moved back. Left retired, it refused every
     * participant until someone deleted it (the 1,000-handover chaos run ended so once). Only if
     * the file at its path is this one (by incarnation). Revived by one CAS from exactly the
     * retired word to no leader above the term it replaced (or the boot seed, if higher); a
     * participant still on a replaced orphan notices on its next tick as ever.
     */
    private void reviveIfRetired() {
        if (seat.word() != RETIRED_WORD) {
            return;
        }
        // Only a file still at its path: an open that mapped a file just before it was replaced
        // (slow, on a loaded host) must leave the orphan retired, or it claims there a term the
        // file at the path also issues (the 1,000-handover chaos run saw it once).
        if (incarnationAt(path) != incarnation) {
            return;
        }
        long floor =
                Math.min(Math.max(seat.retiredTerm(), LeaderSeat.bootTermSeed()), MAX_TERM_FLOOR);
        if (seat.revive(floor)) {
            logger.log(
                    System.Logger.Level.WARNING,
                    "cxc: the leader-election file "
                            + path
                            + " was retired (judged deleted or replaced under a running process)"
                            + " but is at its path and opened again: revived, terms above "
                            + floor);
        }
    }

    /**
     * The incarnation of the election file now at {@code path}, read from the file (8 bytes), or 0
     * if it cannot be read: what tells for sure whether the path still names a mapped file, where a
     * file key can be a moment late or reused by a new file.
     */
    static long incarnationAt(Path path) {
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer word = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            long at = HeaderDescriptor.HEADER_LENGTH + INCARNATION_OFFSET;
            while (word.hasRemaining() && channel.read(word, at + word.position()) >= 0) {
                // read all 8 bytes
            }
            return word.hasRemaining() ? 0 : word.getLong(0);
        } catch (IOException e) {
            return 0;
        }
    }
}
