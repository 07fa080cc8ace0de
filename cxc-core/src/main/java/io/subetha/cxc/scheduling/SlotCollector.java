package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.participant.ParticipantRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The results' side of a {@link BackgroundScheduler}'s slot protocol: a poll claims {@code DONE}
 * slots by CAS to {@code COLLECTING} under this handle's participant record, an acknowledgement
 * CASes exactly that word to {@code FREE} of the next lap (see {@link ResultCollector}).
 */
final class SlotCollector<R> implements ResultCollector<R> {

    private final AtomicBuffer body;
    private final int capacity;
    private final int stride;
    private final int resultOffset;
    private final FixedCodec<R> codec;
    private final ParticipantRecord participant;
    private final Runnable countPoll;
    private final Runnable enter;
    private final Runnable checkFile;
    private final LongSupplier head;
    private final Function<String, RuntimeException> damaged;

    /**
     * @param countPoll counts a poll in the handle's counters (which a successor handle may take
     *     over, so they are looked up at each poll)
     * @param enter starts an operation of the handle (throws once it is closed)
     * @param checkFile the handle's file check, for a read that does not enter
     * @param head the head's position, checked
     * @param damaged the exception naming the file for a damaged body
     */
    SlotCollector(
            AtomicBuffer body,
            int capacity,
            int stride,
            int resultOffset,
            FixedCodec<R> codec,
            ParticipantRecord participant,
            Runnable countPoll,
            Runnable enter,
            Runnable checkFile,
            LongSupplier head,
            Function<String, RuntimeException> damaged) {
        this.body = body;
        this.capacity = capacity;
        this.stride = stride;
        this.resultOffset = resultOffset;
        this.codec = codec;
        this.participant = participant;
        this.countPoll = countPoll;
        this.enter = enter;
        this.checkFile = checkFile;
        this.head = head;
        this.damaged = damaged;
    }

    @Override
    public List<JobResult<R>> poll(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be 1 or more, got " + max);
        }
        enter.run();
        try {
            return pollEntered(max);
        } finally {
            participant.exit();
        }
    }

    @Override
    public int acknowledge(List<JobResult<R>> results) {
        return acknowledged(results).size();
    }

    @Override
    public List<JobResult<R>> take(int max) {
        return acknowledged(poll(max));
    }

    private List<JobResult<R>> pollEntered(int max) {
        countPoll.run();
        List<long[]> done = new ArrayList<>();
        long me = participant.tag();
        long h = head.getAsLong();
        for (int i = 0; i < capacity; i++) {
            int slot = SLOTS_OFFSET + i * stride;
            long word = body.getLongVolatile(slot);
            if (state(word) == DONE) {
                done.add(new long[] {body.getLongAcquire(slot + SEQUENCE_OFFSET), i, word});
            }
        }
        done.sort(Comparator.comparingLong(d -> d[0]));
        List<JobResult<R>> out = new ArrayList<>();
        for (long[] d : done) {
            if (out.size() == max) {
                break;
            }
            int i = (int) d[1];
            int slot = SLOTS_OFFSET + i * stride;
            long word = d[2];
            R result = codec.read(body, slot + resultOffset);
            long lap = JobRing.fullLap(h, lapOf(word), capacity);
            if (lap < 0) {
                throw damaged.apply(
                        "job slot "
                                + i
                                + " holds a result of lap tag "
                                + lapOf(word)
                                + ", which beside the head's lap "
                                + h / capacity
                                + " names a lap below 0");
            }
            // The winner of this CAS alone delivers the result, until it acknowledges it or is
            // judged dead or silent and a scan hands it back to DONE.
            long collecting = JobRing.as(lap, COLLECTING, me, attempt(word));
            if (body.compareAndSetLong(slot, word, collecting)) {
                out.add(new JobResult<>(lap * capacity + i, attempt(word), d[0], result));
            }
        }
        return out;
    }

    /** Frees the slots of the results this handle still holds; those it freed. */
    private List<JobResult<R>> acknowledged(List<JobResult<R>> results) {
        List<JobResult<R>> acknowledged = new ArrayList<>();
        if (results.isEmpty() || !participant.enter()) {
            return acknowledged; // closed: its close handed them back
        }
        try {
            long me = participant.heldTag();
            for (JobResult<R> r : results) {
                long lap = r.jobId() / capacity;
                long collecting = JobRing.as(lap, COLLECTING, me, r.attempt());
                if (me >= 0
                        && body.compareAndSetLong(
                                slotOffset(r.jobId()), collecting, pack(lap + 1, FREE, 0, 0, 0))) {
                    body.getAndAddLong(COLLECTED_OFFSET, 1);
                    acknowledged.add(r);
                }
            }
        } finally {
            participant.exit();
        }
        return acknowledged;
    }

    @Override
    public Optional<R> result(long jobId) {
        checkFile.run();
        if (jobId < 0) {
            throw new IllegalArgumentException("jobId must be 0 or more, got " + jobId);
        }
        int slot = slotOffset(jobId);
        long word = body.getLongVolatile(slot);
        if ((state(word) != DONE && state(word) != COLLECTING)
                || lapOf(word) != lapTag(jobId / capacity)) {
            return Optional.empty();
        }
        R result = codec.read(body, slot + resultOffset);
        return body.getLongVolatile(slot) == word ? Optional.of(result) : Optional.empty();
    }

    private int slotOffset(long id) {
        return SLOTS_OFFSET + (int) (id % capacity) * stride;
    }
}
