package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * An operator's view of a {@link BackgroundScheduler}'s slots: counts by state and the jobs the
 * ring holds. Reads only, slot by slot; a failure's text is kept only if its slot still holds the
 * word read before it.
 */
final class JobListing {

    private final AtomicBuffer body;
    private final int capacity;
    private final int stride;

    JobListing(AtomicBuffer body, int capacity, int stride) {
        this.body = body;
        this.capacity = capacity;
        this.stride = stride;
    }

    BackgroundScheduler.Counts counts() {
        long queued = 0;
        long running = 0;
        long done = 0;
        long failed = 0;
        for (int i = 0; i < capacity; i++) {
            switch (state(body.getLongVolatile(SLOTS_OFFSET + i * stride))) {
                case WRITING, QUEUED -> queued++;
                case RUNNING, COMPLETING -> running++;
                case DONE, COLLECTING -> done++;
                case FAILED -> failed++;
                default -> {}
            }
        }
        return new BackgroundScheduler.Counts(
                queued,
                running,
                done,
                body.getLongVolatile(RECLAIMED_OFFSET),
                body.getLongVolatile(COLLECTED_OFFSET),
                failed);
    }

    /** See {@link BackgroundScheduler#jobs()}. */
    List<JobEntry> jobs() {
        long tail = body.getLongVolatile(TAIL_OFFSET);
        List<JobEntry> jobs = new ArrayList<>();
        for (long id = Math.max(0, tail - capacity); id < tail; id++) {
            long word = body.getLongVolatile(slotOffset(id));
            if (lapOf(word) != lapTag(id / capacity)) {
                continue; // freed and not yet reused, or already a later lap's
            }
            JobEntry.State state =
                    switch (state(word)) {
                        case QUEUED -> JobEntry.State.QUEUED;
                        case RUNNING, COMPLETING -> JobEntry.State.RUNNING;
                        case DONE, COLLECTING -> JobEntry.State.DONE;
                        case FAILED -> JobEntry.State.FAILED;
                        default -> null;
                    };
            if (state == JobEntry.State.FAILED) {
                int slot = slotOffset(id);
                JobFailure failure = FailureText.read(body, slot);
                // Kept only if the slot still holds that failure (not re-run, failed again since).
                if (failure != null && body.getLongVolatile(slot) == word) {
                    jobs.add(new JobEntry(id, state, 0, attempt(word), failure));
                }
            } else if (state != null) {
                long pid = state == JobEntry.State.RUNNING ? workerPid(word) : 0;
                jobs.add(new JobEntry(id, state, pid, attempt(word)));
            }
        }
        return jobs;
    }

    /** The PID of the participant a slot word names, or 0 if its record moved on. */
    private long workerPid(long word) {
        long owner = OwnerRecord.ownerWord(body, participantOffset(participant(word)));
        return generationTag(OwnerRecord.key(owner)) == generation(word)
                ? OwnerRecord.pid(owner)
                : 0;
    }

    private int slotOffset(long id) {
        return SLOTS_OFFSET + (int) (id % capacity) * stride;
    }
}
