package io.subetha.cxc.election;

import static io.subetha.cxc.election.LeaderElectionDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The leader's seat of one election file and the global epoch it is judged by: the protocol on the
 * leader word ({@link LeaderElectionDescriptor}). Every change of the word is one compare-and-set
 * from exactly the word judged, through {@link OwnerRecord#claim} for a claim, so nothing is
 * written on behalf of a CAS that was lost. Counting and forwarding are the election's; this class
 * only reads and writes the seat.
 */
final class LeaderSeat {

    /** How long an opener waits for a seat holding its own PID to show whose it is. */
    private static final long IDENTITY_WAIT_NANOS = 100_000_000;

    private final AtomicBuffer body;
    private final Path path;

    /**
     * The highest term this handle saw in the seat or issued: terms only rise in a file, so a seat
     * below it was written by something else (a file truncated and grown back reads zero), and a
     * claim on it would issue a fencing token already issued.
     */
    private final AtomicLong highestTerm = new AtomicLong();

    LeaderSeat(AtomicBuffer body, Path path) {
        this.body = body;
        this.path = path;
        long word = word();
        if (word != RETIRED_WORD) {
            highestTerm.set(term(word));
        }
    }

    /**
     * The term a new file starts from: the whole seconds since boot ({@code CLOCK_MONOTONIC}, which
     * is what {@link System#nanoTime()} reads on Linux and only grows on a host until it reboots),
     * so terms keep rising across a file recreated under running processes, as long as handovers
     * averaged under one a second. Participants that saw the old file also carry its term over
     * ({@link #raiseTermFloor}). Across a reboot terms may restart lower: see the README.
     */
    static long bootTermSeed() {
        long seconds = System.nanoTime() / 1_000_000_000L;
        return seconds <= 0 ? 0 : Math.min(seconds, 0x7FFF_FFFFL);
    }

    long word() {
        return body.getLongVolatile(LEADER_WORD_OFFSET);
    }

    long globalEpoch() {
        return body.getLongVolatile(GLOBAL_EPOCH_OFFSET);
    }

    /** The leader's heartbeat word, read raw. */
    long heartbeatWord() {
        return body.getLongVolatile(LEADER_HEARTBEAT_OFFSET);
    }

    /** The leader's heartbeat as its owner record reads it. */
    long heartbeat() {
        return OwnerRecord.heartbeat(body, LEADER_RECORD_OFFSET);
    }

    /** The start time the seat records for the holder of {@code word}. */
    long startTime(long word) {
        return OwnerRecord.startTime(body, LEADER_RECORD_OFFSET, word);
    }

    ProcessStatus status(long word) {
        return OwnerRecord.status(body, LEADER_RECORD_OFFSET, word);
    }

    /**
     * @return the new epoch
     */
    long tickEpoch() {
        return body.getAndAddLong(GLOBAL_EPOCH_OFFSET, 1) + 1;
    }

    /** Beats the seat with the current epoch; the caller has found its PID there. */
    void beat() {
        OwnerRecord.beat(body, LEADER_RECORD_OFFSET, globalEpoch());
    }

    /**
     * The claim's decision loop, after the fast path: takes the seat if it is free, stale by {@code
     * graceEpochs}, or (with {@code preempt}) held by a higher PID.
     */
    boolean claim(long myPid, long graceEpochs, boolean preempt) {
        while (true) {
            long word = word();
            if (word == RETIRED_WORD) {
                return false; // a file retired under running processes: nobody leads here again
            }
            requireNoLowerThanSeen(word);
            long leader = leaderPid(word);
            if (leader == myPid) {
                // Ours, or a dead process's that had our PID: that one's term is not ours to
                // continue (its fencing token would be accepted twice), so take the next.
                if (ownedByThisProcessOrUnknown(word, myPid) || takeOver(word, myPid)) {
                    return true;
                }
                continue;
            }
            boolean stale = globalEpoch() - heartbeat() > graceEpochs;
            if (leader != NO_LEADER && !stale && (myPid > leader || !preempt)) {
                return false;
            }
            if (takeOver(word, myPid)) {
                return true;
            }
            // Lost the CAS to another claimant or a step-down: decide again on the new state.
        }
    }

    /**
     * Replaces exactly the leader word {@code expected} with {@code myPid} under the next term,
     * through {@link OwnerRecord#claim}: nothing is written unless the CAS wins.
     */
    boolean takeOver(long expected, long myPid) {
        long mine = packLeaderWord(myPid, (term(expected) + 1) & 0xFFFF_FFFFL);
        if (!OwnerRecord.claim(
                body,
                LEADER_RECORD_OFFSET,
                expected,
                mine,
                OwnerRecord.startTimeOf(myPid),
                this::globalEpoch)) {
            return false;
        }
        highestTerm.accumulateAndGet(term(mine), Math::max);
        return true;
    }

    /** Refuses a seat whose term is below one this handle saw: never trust a term that fell. */
    private void requireNoLowerThanSeen(long word) {
        long seen = highestTerm.get();
        long term = term(word);
        if (term < seen) {
            throw new CxcFormatException(
                    "the leader-election file "
                            + path
                            + " is damaged: its term fell from "
                            + seen
                            + " to "
                            + term
                            + " under this handle (truncated, zeroed or written by something"
                            + " other than cxc), so a claim would issue a fencing token already"
                            + " issued; this handle claims nothing more. Stop its processes and"
                            + " recreate the file.");
        }
        highestTerm.accumulateAndGet(term, Math::max);
    }

    /**
     * Whether {@code word}, which holds {@code pid}, is that process's own: its identity names the
     * process's start time, or is not published yet (a claim of this process in flight).
     */
    private boolean ownedByThisProcessOrUnknown(long word, long pid) {
        return startTime(word) == ProcessProbe.UNKNOWN_START_TIME || ownedByThisProcess(word, pid);
    }

    private boolean ownedByThisProcess(long word, long pid) {
        return OwnerRecord.isOwnedBy(
                body, LEADER_RECORD_OFFSET, word, pid, OwnerRecord.startTimeOf(pid));
    }

    /** Frees the seat if {@code myPid} holds it, keeping the term: the next claim raises it. */
    boolean stepDown(long myPid) {
        while (true) {
            long word = word();
            if (leaderPid(word) != myPid) {
                return false;
            }
            Interleaving.at(Point.STEP_DOWN_JUDGED);
            if (body.compareAndSetLong(
                    LEADER_WORD_OFFSET, word, packLeaderWord(NO_LEADER, term(word)))) {
                return true;
            }
        }
    }

    /** Replaces a word whose term is below {@code floor} with no leader at {@code floor}. */
    boolean raiseTermFloor(long floor) {
        while (true) {
            long word = word();
            if (word == RETIRED_WORD || term(word) >= floor) {
                return false;
            }
            if (body.compareAndSetLong(
                    LEADER_WORD_OFFSET, word, packLeaderWord(NO_LEADER, floor))) {
                return true;
            }
        }
    }

    /**
     * Sets the retired word if the seat names {@code myPid} or no one.
     *
     * @return the term {@code myPid} led under, or -1
     * @throws InternalError if the file was truncated under the mapping (reads past its end fault)
     */
    long retire(long myPid) {
        while (true) {
            long word = word();
            long leader = leaderPid(word);
            if (word == RETIRED_WORD || (leader != myPid && leader != NO_LEADER)) {
                return -1;
            }
            // Before the CAS: a reviver must find the term the retired word hides. Only ever
            // raised, to a term that was issued, so a crash before the CAS leaves no harm.
            raiseRetiredTerm(term(word));
            Interleaving.at(Point.RETIRE_JUDGED);
            if (body.compareAndSetLong(LEADER_WORD_OFFSET, word, RETIRED_WORD)) {
                return leader == myPid ? term(word) : -1;
            }
        }
    }

    private void raiseRetiredTerm(long term) {
        long seen = body.getLongVolatile(RETIRED_TERM_OFFSET);
        while (seen < term && !body.compareAndSetLong(RETIRED_TERM_OFFSET, seen, term)) {
            seen = body.getLongVolatile(RETIRED_TERM_OFFSET);
        }
    }

    /** The highest term a retired word replaced. */
    long retiredTerm() {
        return body.getLongVolatile(RETIRED_TERM_OFFSET);
    }

    /** One CAS from exactly the retired word to no leader at {@code floor}. */
    boolean revive(long floor) {
        return body.compareAndSetLong(
                LEADER_WORD_OFFSET, RETIRED_WORD, packLeaderWord(NO_LEADER, floor));
    }

    /**
     * A PID names one live process at a time, and a process's PID can only have been another's
     * before this process existed: so a seat that holds this process's PID but not its identity
     * belongs to a dead process, whose term this one must not continue (its fencing token would be
     * accepted twice). Released once per handle, with one CAS from exactly that word; the fast
     * paths can then trust a PID match. A seat this process's other handle is taking shows its
     * identity within microseconds; a dead one's never will.
     */
    void releaseSeatOfTheDeadHolderOfOurPid() {
        long me = Pids.current();
        long word = word();
        long deadline = System.nanoTime() + IDENTITY_WAIT_NANOS;
        while (leaderPid(word) == me && !ownedByThisProcess(word, me)) {
            if (startTime(word) != ProcessProbe.UNKNOWN_START_TIME
                    || System.nanoTime() - deadline >= 0) {
                OwnerRecord.release(body, LEADER_RECORD_OFFSET, word);
                return;
            }
            Thread.onSpinWait();
            word = word();
        }
    }
}
