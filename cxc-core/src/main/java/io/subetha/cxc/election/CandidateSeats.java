package io.subetha.cxc.election;

import static io.subetha.cxc.election.LeaderElectionDescriptor.*;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.util.Arrays;

/**
 * The candidate table of one election file ({@value LeaderElectionDescriptor#CANDIDATE_CAPACITY}
 * owner records): each participant holds a seat and beats it with the global epoch, so a survivor
 * of a dead leader sees whether a lower live PID is about to claim. A seat is taken only by the CAS
 * of {@link OwnerRecord#claim} from exactly the word judged; a crash after it leaves a seat that
 * goes stale and is taken over.
 */
final class CandidateSeats {

    private final AtomicBuffer body;

    CandidateSeats(AtomicBuffer body) {
        this.body = body;
    }

    private long globalEpoch() {
        return body.getLongVolatile(GLOBAL_EPOCH_OFFSET);
    }

    /**
     * @return the index of {@code myPid}'s seat (its own if it still holds one, else a free, stale
     *     or dead one it won), or -1 if every seat is held by a live candidate
     */
    int register(long myPid, long graceEpochs) {
        long startTime = OwnerRecord.startTimeOf(myPid);
        for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
            int record = candidateRecordOffset(i);
            long word = OwnerRecord.ownerWord(body, record);
            if (OwnerRecord.isOwnedBy(body, record, word, myPid, startTime)) {
                return i;
            }
        }
        long epoch = globalEpoch();
        for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
            int record = candidateRecordOffset(i);
            long word = OwnerRecord.ownerWord(body, record);
            OwnerStatus status = OwnerRecord.judge(body, record, word, epoch, graceEpochs);
            if (status != OwnerStatus.LIVE
                    && OwnerRecord.claim(
                            body,
                            record,
                            word,
                            OwnerRecord.ownerWord(myPid, OwnerRecord.nextGeneration(word)),
                            startTime,
                            this::globalEpoch)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @return false if {@code myPid} no longer holds seat {@code index}
     */
    boolean beat(int index, long myPid) {
        int record = candidateRecordOffset(index);
        if (OwnerRecord.pid(OwnerRecord.ownerWord(body, record)) != myPid) {
            return false;
        }
        OwnerRecord.beat(body, record, globalEpoch());
        return true;
    }

    void leave(int index, long myPid) {
        int record = candidateRecordOffset(index);
        long word = OwnerRecord.ownerWord(body, record);
        if (OwnerRecord.pid(word) == myPid) {
            OwnerRecord.release(body, record, word);
        }
    }

    /**
     * The lowest PID below {@code below}, other than {@code except}, whose seat's beat lags by at
     * most {@code graceEpochs} and whose process is not provably dead; probes {@code /proc} only
     * for the PIDs it would return.
     */
    long lowestLiveBelow(long below, long except, long graceEpochs) {
        long epoch = globalEpoch();
        long[] words = new long[CANDIDATE_CAPACITY];
        for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
            int record = candidateRecordOffset(i);
            long word = OwnerRecord.ownerWord(body, record);
            long pid = OwnerRecord.pid(word);
            boolean fresh = epoch - OwnerRecord.heartbeat(body, record) <= graceEpochs;
            words[i] = pid != NO_LEADER && pid < below && pid != except && fresh ? word : 0;
        }
        while (true) {
            int best = -1;
            for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
                if (words[i] != 0
                        && (best < 0 || OwnerRecord.pid(words[i]) < OwnerRecord.pid(words[best]))) {
                    best = i;
                }
            }
            if (best < 0) {
                return NO_LEADER;
            }
            if (!OwnerRecord.isDead(body, candidateRecordOffset(best), words[best])) {
                return OwnerRecord.pid(words[best]);
            }
            words[best] = 0;
        }
    }

    /** The PIDs holding a seat, fresh or not, lowest first. */
    long[] pids() {
        long[] pids = new long[CANDIDATE_CAPACITY];
        int n = 0;
        for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
            long pid = OwnerRecord.pid(OwnerRecord.ownerWord(body, candidateRecordOffset(i)));
            if (pid != NO_LEADER) {
                pids[n++] = pid;
            }
        }
        long[] held = Arrays.copyOf(pids, n);
        Arrays.sort(held);
        return held;
    }
}
