package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.participant.ParticipantRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BackgroundScheduler}'s timetable: recurring and delayed jobs, each an entry that is
 * fired (its job submitted to the ring) once per due time, by whichever process polls when it is
 * due. Layout: {@link BackgroundSchedulerDescriptor}.
 *
 * <p><b>Protocol: one CAS per step, on the entry word</b> {@code (state, participant, generation,
 * fire number n)}; fire {@code n} is due at the due field of {@code n}'s parity, so arming fire
 * {@code n + 1} never overwrites the due time of fire {@code n}.
 *
 * <ul>
 *   <li><b>Schedule / unschedule</b> run under the timetable lock (a CAS'd word naming its
 *       participant; a dead holder's is freed by the scan): the holder takes an entry of the same
 *       name out ({@code ARMED}/{@code FIRED → ENTRY_FREE}, waiting out a fire in flight), writes a
 *       free entry whole and arms it ({@code ENTRY_FREE(n) → ARMED(n + 1)}). Names are unique
 *       because only the holder looks them up and writes them. Killed midway, the entry is free
 *       (unscheduled); a registration at the next start writes it again.
 *   <li><b>Fire</b>: CAS {@code ARMED(n) → FIRING(me, n)}; submit the job through the ring's own
 *       submit step, recording in the entry, between the slot's {@code WRITING} CAS and the job's
 *       copy, the job id it reserved and then {@code n}, the fire it belongs to; then write the due
 *       time of fire {@code n + 1} and CAS {@code FIRING(me, n) → ARMED(n + 1)} (a one-shot entry
 *       goes to {@code ENTRY_FREE} instead). A full ring hands the entry back as {@code ARMED(n)}:
 *       it fires at a later look.
 *   <li><b>Repair</b> of a dead firer's {@code FIRING(p, n)} (dead by {@code /proc}; a silent one
 *       keeps its entry until it wakes, delaying only that entry), before its ring slots are
 *       repaired: if the recorded fire is {@code n} and its slot holds the job past {@code WRITING}
 *       (or the slot's lap moved on), the job was queued: CAS to {@code FIRED(n)}, which any poller
 *       re-arms ({@code FIRED(n) → REARMING(me, n) → ARMED(n + 1)}; a dead {@code REARMING} goes
 *       back to {@code FIRED}). Otherwise it was not: CAS back to {@code ARMED(n)}, and the next
 *       look fires it.
 * </ul>
 *
 * <p><b>Why no fire is doubled or lost.</b> A job is queued for fire {@code n} only by the holder
 * of {@code FIRING(p, n)}, and only through the slot it recorded. The repair judges that one slot:
 * the slot's {@code WRITING → QUEUED} CAS is the fire's commit point. While the firer is dead and
 * its {@code FIRING} stands, its slot can be {@code WRITING} (not queued; no one else queues it),
 * {@code ABANDONED} by a step-over while it was silent (not queued, and kept from reuse until the
 * firer is found dead), or queued and then anything (run, freed, reused: its lap moves on, which
 * only a queued job's end does, since the dead firer's {@code WRITING} slot is abandoned and freed
 * only by the scan's ring repair, which runs after this repair has moved the entry word). Every
 * decision is a CAS from the exact {@code FIRING} word judged, so two scanners make it once. A
 * firer that lost its slot to a step-over clears the recorded fire before it lets the slot go, so a
 * stale id is never judged. Firing only moves forward: {@code ARMED(n + 1)} is written once fire
 * {@code n} is queued, never before.
 *
 * <p><b>Next due hint.</b> A word holds the earliest due time (or less): a poll whose clock is
 * before it costs that one read. A poll past it takes the look by CAS to "none", fires what is due
 * and lowers the word to every armed entry's due time; each arm lowers it too, after its entry's
 * CAS, so a look racing an arm leaves it low enough. A looker killed midway leaves it at "none":
 * the scheduler's scan lowers it again. Every lowering rings the scheduler's doorbell: a sleeping
 * worker bounds its sleep by the word, and must learn of an earlier due time.
 */
final class Timetable {

    static final String ONCE = "once:";
    private static final long NOT_RECORDED = -1;
    // A schedule waiting for the lock or for a fire in flight scans between looks: not in a spin.
    private static final long PAUSE_NANOS = 100_000;
    private static final long SCANS_EVERY = BackgroundScheduler.SCAN_INTERVAL.toNanos();

    private final AtomicBuffer body;
    private final JobRing ring;
    private final RingSubmitter submitter;
    private final ParticipantRecord participant;
    private final Path file;
    private final int base;
    private final int stride;
    private final int payloadLongs;
    private final int entries;
    private final long waitNanos;
    private final Runnable scan;
    private final Runnable lowered;
    private final Map<String, Recurrence> parsed = new ConcurrentHashMap<>();
    private volatile long lastScan = System.nanoTime() - SCANS_EVERY;

    /**
     * @param payloadBytes the job codec's size rounded up to 8
     * @param entries how many entries the file holds
     * @param graceNanos the scheduler's grace: how long a schedule waits for a silent lock holder
     *     or firer, beyond which it times out
     * @param scan the scheduler's scan, which repairs dead participants' entries and lock
     * @param lowered rings the doorbell: after the next-due word is lowered, so that sleepers bound
     *     their sleep by it
     */
    Timetable(
            JobRing ring,
            RingSubmitter submitter,
            ParticipantRecord participant,
            Path file,
            int payloadBytes,
            int entries,
            long graceNanos,
            Runnable scan,
            Runnable lowered) {
        this.body = ring.body;
        this.ring = ring;
        this.submitter = submitter;
        this.participant = participant;
        this.file = file;
        this.base = timetableOffset(ring.capacity, ring.stride);
        this.stride = ring.stride;
        this.payloadLongs = payloadBytes / 8;
        this.entries = entries;
        this.waitNanos = 2 * graceNanos + 1_000_000_000L;
        this.scan = scan;
        this.lowered = lowered;
    }

    private int entryOffset(int entry) {
        return base + entry * stride;
    }

    private static int dueOffset(long fire) {
        return ENTRY_DUE_OFFSET + (int) (fire & 1) * 8;
    }

    // ------------------------------------------------------------------------------ schedule

    /**
     * Schedules {@code name}: replaces an entry of that name (keeping its due time if its
     * recurrence is the same), else takes a free one.
     *
     * @param spec the recurrence's spec, or {@link #ONCE}
     * @param firstDue epoch ms of the first fire
     * @param writeRun writes the run fields and payload at the entry offset it is given
     * @return true if the name was new
     */
    boolean schedule(String name, String spec, long firstDue, IntConsumer writeRun) {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        byte[] specBytes = spec.getBytes(StandardCharsets.UTF_8);
        long me = lock();
        try {
            int existing = name.isEmpty() ? -1 : find(nameBytes);
            long due = firstDue;
            int entry = existing;
            long firstFire = -1;
            if (existing >= 0) {
                int e = entryOffset(existing);
                // Replacing takes a fire number without a fire: the count is kept.
                firstFire = body.getLongAcquire(e + ENTRY_FIRST_FIRE_OFFSET) + 1;
                long word = takeOut(existing);
                if (readText(e, ENTRY_SPEC_LENGTH_OFFSET, ENTRY_SPEC_OFFSET).equals(spec)) {
                    due = body.getLongAcquire(e + dueOffset(entryFire(word)));
                }
            } else {
                entry = firstFree();
            }
            int e = entryOffset(entry);
            long free = body.getLongVolatile(e);
            long fire = entryFire(free) + 1;
            if (name.isEmpty()) {
                // A delayed job's entry: named after its place and fire, so it can be listed and
                // unscheduled, and never equal to a caller's name (which may not start with '@').
                nameBytes = ("@" + entry + "." + fire).getBytes(StandardCharsets.US_ASCII);
            }
            writeText(e, ENTRY_NAME_LENGTH_OFFSET, ENTRY_NAME_OFFSET, nameBytes);
            writeText(e, ENTRY_SPEC_LENGTH_OFFSET, ENTRY_SPEC_OFFSET, specBytes);
            body.setLongPlain(e + ENTRY_JOB_FIRE_OFFSET, NOT_RECORDED);
            body.setLongPlain(e + ENTRY_FIRST_FIRE_OFFSET, firstFire < 0 ? fire : firstFire);
            writeRun.accept(e);
            body.setLongRelease(e + dueOffset(fire), due);
            Interleaving.at(Interleaving.Point.TIMETABLE_ENTRY_WRITTEN);
            if (!body.compareAndSetLong(e, free, entryWord(ARMED, 0, 0, fire))) {
                throw new IllegalStateException(
                        file
                                + ": timetable entry "
                                + entry
                                + " moved while locked: a damaged file");
            }
            lowerNextDue(due);
            return existing < 0;
        } finally {
            unlock(me);
        }
    }

    /** Takes {@code name}'s entry out of the timetable; false if none has that name. */
    boolean unschedule(String name) {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        long me = lock();
        try {
            int entry = find(nameBytes);
            if (entry < 0) {
                return false;
            }
            takeOut(entry);
            return true;
        } finally {
            unlock(me);
        }
    }

    /** Frees an entry (under the lock), once no fire of it is in flight; its word as it was. */
    private long takeOut(int entry) {
        int e = entryOffset(entry);
        long deadline = System.nanoTime() + waitNanos;
        while (true) {
            long word = body.getLongVolatile(e);
            int state = entryState(word);
            if (state == ARMED || state == FIRED) {
                if (body.compareAndSetLong(e, word, entryWord(ENTRY_FREE, 0, 0, entryFire(word)))) {
                    return word;
                }
                continue;
            }
            if (state == ENTRY_FREE) {
                return word; // a one-shot that fired meanwhile
            }
            // FIRING or REARMING: a fire in flight, or a dead firer's the scan repairs.
            if (System.nanoTime() - deadline > 0) {
                throw new CxcTimeoutException(
                        file
                                + ": timetable entry "
                                + readText(e, ENTRY_NAME_LENGTH_OFFSET, ENTRY_NAME_OFFSET)
                                + " is still being fired by "
                                + holder(entryParticipant(word))
                                + ", silent beyond the grace; try again once it resumes or dies");
            }
            pause(); // a dead firer's entry is repaired by the scan
        }
    }

    private int find(byte[] name) {
        for (int i = 0; i < entries; i++) {
            int e = entryOffset(i);
            if (entryState(body.getLongVolatile(e)) != ENTRY_FREE && nameIs(e, name)) {
                return i;
            }
        }
        return -1;
    }

    private int firstFree() {
        for (int i = 0; i < entries; i++) {
            if (entryState(body.getLongVolatile(entryOffset(i))) == ENTRY_FREE) {
                return i;
            }
        }
        throw full();
    }

    /** What a schedule or a delayed submit answers when every entry is taken. */
    CxcCapacityException full() {
        return new CxcCapacityException(
                file
                        + "'s timetable is full: it holds "
                        + entries
                        + " recurring and delayed jobs (timetableEntries, fixed when the file was"
                        + " created); unschedule one, wait for delayed jobs to fire, or create the"
                        + " scheduler with more timetable entries in a new file");
    }

    /** How many recurring and delayed jobs the timetable holds. */
    int capacity() {
        return entries;
    }

    private long lock() {
        long me = participant.tag();
        long mine = lockWord(ParticipantRecord.indexOf(me), ParticipantRecord.generationOf(me));
        long deadline = System.nanoTime() + waitNanos;
        while (!body.compareAndSetLong(TIMETABLE_LOCK_OFFSET, 0, mine)) {
            long held = body.getLongVolatile(TIMETABLE_LOCK_OFFSET);
            if (held != 0 && System.nanoTime() - deadline > 0) {
                throw new CxcTimeoutException(
                        file
                                + ": the timetable lock is held by "
                                + holder((int) ((held >>> 1) & 0x3F))
                                + ", silent beyond the grace; try again once it resumes or dies");
            }
            pause(); // a dead holder's lock is freed by the scan
        }
        return mine;
    }

    /** Between two looks at what a schedule waits for: a scan every {@link #SCANS_EVERY}. */
    private void pause() {
        long now = System.nanoTime();
        if (now - lastScan > SCANS_EVERY) {
            lastScan = now;
            scan.run();
        }
        LockSupport.parkNanos(PAUSE_NANOS);
    }

    private void unlock(long mine) {
        body.compareAndSetLong(TIMETABLE_LOCK_OFFSET, mine, 0);
    }

    private String holder(int record) {
        long owner = OwnerRecord.ownerWord(body, participantOffset(record));
        return "PID " + OwnerRecord.pid(owner) + " (participant " + record + ")";
    }

    /** Refuses a name no entry may have. */
    static void requireName(String name) {
        if (name == null
                || name.isEmpty()
                || name.startsWith("@")
                || name.getBytes(StandardCharsets.UTF_8).length > ENTRY_NAME_MAX) {
            throw new IllegalArgumentException(
                    "a recurring job's name must be 1.."
                            + ENTRY_NAME_MAX
                            + " UTF-8 bytes, not starting with @ (delayed jobs' names), got "
                            + (name == null ? "null" : "\"" + name + "\""));
        }
    }

    /** {@code recurrence}'s spec, refused unless it fits an entry and reads back. */
    static String requireSpec(Recurrence recurrence) {
        String spec = recurrence.spec();
        if (spec.getBytes(StandardCharsets.UTF_8).length > ENTRY_SPEC_MAX) {
            throw new IllegalArgumentException(
                    "recurrence \"" + spec + "\" is longer than " + ENTRY_SPEC_MAX + " bytes");
        }
        Recurrence.parse(spec); // every process reads the spec back: it must read back here
        return spec;
    }

    /** {@code job} as {@code codec} writes it: a payload that fails to encode fails here. */
    static <J> byte[] encoded(FixedCodec<J> codec, int jobSize, J job) {
        int size = rounded(jobSize);
        AtomicBuffer scratch =
                new AtomicBuffer(ByteBuffer.allocateDirect(size + 8).alignedSlice(8));
        codec.write(scratch, 0, job);
        byte[] bytes = new byte[size];
        scratch.getBytes(0, bytes);
        return bytes;
    }

    /** Writes an entry's run fields and payload, as a job slot keeps them (under the lock). */
    void writeRun(int e, byte[] payload, RetryPolicy policy, int flags) {
        body.setIntPlain(e + MAX_ATTEMPTS_OFFSET, policy.maxAttempts());
        body.setIntPlain(e + FLAGS_OFFSET, flags);
        body.setLongPlain(e + INITIAL_BACKOFF_OFFSET, policy.initialBackoff().toNanos());
        body.setLongPlain(e + MAX_BACKOFF_OFFSET, policy.maxBackoff().toNanos());
        body.setLongPlain(e + MULTIPLIER_OFFSET, Double.doubleToRawLongBits(policy.multiplier()));
        body.putBytes(e + JOB_OFFSET, payload);
    }

    // ---------------------------------------------------------------------------------- fire

    /**
     * Fires the entries due at {@code now} (epoch ms), when the next-due hint says any may be; the
     * fires made.
     */
    int fireDue(long now) {
        long hint = body.getLongVolatile(NEXT_DUE_OFFSET);
        if (now < hint || !body.compareAndSetLong(NEXT_DUE_OFFSET, hint, Long.MAX_VALUE)) {
            return 0; // nothing due, or another poller is looking
        }
        int fired = 0;
        for (int i = 0; i < entries; i++) {
            fired += fireIfDue(entryOffset(i), now);
        }
        lowerNextDue();
        return fired;
    }

    private int fireIfDue(int e, long now) {
        long word = body.getLongVolatile(e);
        int state = entryState(word);
        if (state != ARMED && state != FIRED) {
            return 0;
        }
        long fire = entryFire(word);
        long due = body.getLongAcquire(e + dueOffset(fire));
        if (state == ARMED && due > now) {
            return 0;
        }
        String spec = readText(e, ENTRY_SPEC_LENGTH_OFFSET, ENTRY_SPEC_OFFSET);
        if (body.getLongVolatile(e) != word) {
            return 0; // moved on while read: a torn spec
        }
        Recurrence recurrence = recurrenceOf(spec);
        if (recurrence == null && !spec.equals(ONCE)) {
            return 0; // a kind this class path cannot read: left to the processes that can
        }
        long me = participant.tag();
        int held = state == ARMED ? FIRING : REARMING;
        long mine =
                entryWord(
                        held,
                        ParticipantRecord.indexOf(me),
                        ParticipantRecord.generationOf(me),
                        fire);
        if (!body.compareAndSetLong(e, word, mine)) {
            return 0;
        }
        if (held == REARMING) {
            rearm(e, mine, fire, due, recurrence, now);
            return 0;
        }
        Interleaving.at(Interleaving.Point.TIMETABLE_FIRING);
        long id;
        try {
            id = submitter.submit(slot -> copyRun(e, slot), reservation(e, fire));
        } catch (RuntimeException | Error failure) {
            body.compareAndSetLong(e, mine, word); // not queued: due again
            throw failure;
        }
        if (id < 0) {
            body.compareAndSetLong(e, mine, word); // the ring is full: due again at a later look
            return 0;
        }
        body.getAndAddLong(FIRES_OFFSET, 1);
        Interleaving.at(Interleaving.Point.TIMETABLE_SUBMITTED);
        rearm(e, mine, fire, due, recurrence, now);
        return 1;
    }

    private void rearm(
            int e, long held, long fire, long due, @Nullable Recurrence recurrence, long now) {
        if (recurrence == null) {
            body.compareAndSetLong(e, held, entryWord(ENTRY_FREE, 0, 0, fire)); // a one-shot
            return;
        }
        long next =
                recurrence
                        .nextAfterFire(Instant.ofEpochMilli(due), Instant.ofEpochMilli(now))
                        .toEpochMilli();
        body.setLongRelease(e + dueOffset(fire + 1), next);
        if (body.compareAndSetLong(e, held, entryWord(ARMED, 0, 0, fire + 1))) {
            lowerNextDue(next);
        }
    }

    private RingSubmitter.Reservation reservation(int e, long fire) {
        return new RingSubmitter.Reservation() {
            @Override
            public void reserved(long id) {
                body.setLongRelease(e + ENTRY_JOB_OFFSET, id);
                body.setLongRelease(e + ENTRY_JOB_FIRE_OFFSET, fire);
            }

            @Override
            public void lettingGo(long id) {
                body.setLongRelease(e + ENTRY_JOB_FIRE_OFFSET, NOT_RECORDED);
            }
        };
    }

    /** Writes a fire's job into the ring slot the firer holds: the entry's run fields, payload. */
    private void copyRun(int e, int slot) {
        body.setLongPlain(slot + NOT_BEFORE_OFFSET, 0);
        body.setLongPlain(slot + RUN_BASE_OFFSET, 0);
        for (int offset = MAX_ATTEMPTS_OFFSET; offset < ENTRY_JOB_FIRE_OFFSET; offset += 8) {
            body.setLongPlain(slot + offset, body.getLongPlain(e + offset));
        }
        body.setLongPlain(slot + FAILURE_LENGTH_OFFSET, 0); // and no hand-back's mark
        for (int i = 0; i < payloadLongs; i++) {
            int offset = JOB_OFFSET + i * 8;
            body.setLongPlain(slot + offset, body.getLongPlain(e + offset));
        }
    }

    private @Nullable Recurrence recurrenceOf(String spec) {
        if (spec.equals(ONCE)) {
            return null;
        }
        Recurrence known = parsed.get(spec);
        if (known != null) {
            return known;
        }
        try {
            Recurrence recurrence = Recurrence.parse(spec);
            if (parsed.size() < 4 * entries) {
                parsed.put(spec, recurrence);
            }
            return recurrence;
        } catch (RuntimeException unreadable) {
            return null;
        }
    }

    // -------------------------------------------------------------------------------- hint

    /**
     * Lowers the next-due hint to every entry's due time: a fired entry is due now. Only a lowering
     * to a time still ahead rings: after a look (or a scan) the word goes back to what is due and
     * the looker did not fire (a kind it cannot read, a full ring); rung for that, sleepers in two
     * processes would wake each other by their looks for as long as it stays so.
     */
    void lowerNextDue() {
        long now = System.currentTimeMillis();
        for (int i = 0; i < entries; i++) {
            int e = entryOffset(i);
            long word = body.getLongVolatile(e);
            switch (entryState(word)) {
                case ARMED -> {
                    long due = body.getLongAcquire(e + dueOffset(entryFire(word)));
                    lowerNextDue(due, due > now);
                }
                case FIRED -> lowerNextDue(0, false);
                default -> {}
            }
        }
    }

    private void lowerNextDue(long due) {
        lowerNextDue(due, true);
    }

    private void lowerNextDue(long due, boolean ring) {
        long hint;
        while (due < (hint = body.getLongVolatile(NEXT_DUE_OFFSET))) {
            if (body.compareAndSetLong(NEXT_DUE_OFFSET, hint, due)) {
                if (ring) {
                    lowered.run();
                }
                return;
            }
        }
    }

    // ------------------------------------------------------------------------------ repair

    /**
     * Repairs what dead participant {@code record} (of {@code generation}'s low bits) left: its
     * fires in flight (see the class comment) and the lock. Runs before its ring slots are
     * repaired.
     */
    void repair(int record, long generation) {
        for (int i = 0; i < entries; i++) {
            int e = entryOffset(i);
            long word = body.getLongVolatile(e);
            int state = entryState(word);
            if ((state != FIRING && state != REARMING)
                    || entryParticipant(word) != record
                    || entryGeneration(word) != generation) {
                continue;
            }
            long fire = entryFire(word);
            boolean queued = state == REARMING || queued(e, fire);
            long repaired = entryWord(queued ? FIRED : ARMED, 0, 0, fire);
            if (body.compareAndSetLong(e, word, repaired)) {
                lowerNextDue(0);
            }
        }
        body.compareAndSetLong(TIMETABLE_LOCK_OFFSET, lockWord(record, generation), 0);
    }

    /** Whether a dead firer queued fire {@code fire}'s job: see the class comment. */
    private boolean queued(int e, long fire) {
        if (body.getLongAcquire(e + ENTRY_JOB_FIRE_OFFSET) != fire) {
            return false;
        }
        long id = body.getLongAcquire(e + ENTRY_JOB_OFFSET);
        if (id < 0) {
            return false; // not a job id: a damaged entry, judged not queued
        }
        long word = body.getLongVolatile(ring.slotOffset(id));
        if (lapOf(word) != lapTag(id / ring.capacity)) {
            return true; // queued, ended and freed since
        }
        int state = state(word);
        return state != WRITING && state != ABANDONED && state != FREE;
    }

    // ----------------------------------------------------------------------------- listing

    /** The entries now, entry by entry (not atomic across entries). */
    List<TimetableEntry> entries() {
        List<TimetableEntry> listed = new ArrayList<>();
        for (int i = 0; i < entries; i++) {
            int e = entryOffset(i);
            long word = body.getLongVolatile(e);
            int state = entryState(word);
            if (state == ENTRY_FREE) {
                continue;
            }
            String name = readText(e, ENTRY_NAME_LENGTH_OFFSET, ENTRY_NAME_OFFSET);
            String spec = readText(e, ENTRY_SPEC_LENGTH_OFFSET, ENTRY_SPEC_OFFSET);
            long fire = entryFire(word);
            long due = body.getLongAcquire(e + dueOffset(fire));
            long firstFire = body.getLongAcquire(e + ENTRY_FIRST_FIRE_OFFSET);
            if (body.getLongVolatile(e) == word) {
                listed.add(
                        new TimetableEntry(
                                name,
                                spec.equals(ONCE) ? "once" : spec,
                                Instant.ofEpochMilli(due),
                                Math.max(0, fire - firstFire),
                                state == FIRING || state == REARMING));
            }
        }
        return listed;
    }

    /** Fires made by every process since the file was created. */
    long fires() {
        return body.getLongVolatile(FIRES_OFFSET);
    }

    // ------------------------------------------------------------------------------- texts

    private boolean nameIs(int e, byte[] name) {
        if (body.getIntAcquire(e + ENTRY_NAME_LENGTH_OFFSET) != name.length) {
            return false;
        }
        for (int i = 0; i < name.length; i++) {
            if (body.getByte(e + ENTRY_NAME_OFFSET + i) != name[i]) {
                return false;
            }
        }
        return true;
    }

    private void writeText(int e, int lengthOffset, int textOffset, byte[] text) {
        body.putBytes(e + textOffset, text);
        body.setIntRelease(e + lengthOffset, text.length);
    }

    private String readText(int e, int lengthOffset, int textOffset) {
        int length = body.getIntAcquire(e + lengthOffset);
        int max = lengthOffset == ENTRY_NAME_LENGTH_OFFSET ? ENTRY_NAME_MAX : ENTRY_SPEC_MAX;
        if (length < 0 || length > max) {
            return ""; // a torn or damaged length: the caller's re-check of the word drops it
        }
        byte[] text = new byte[length];
        body.getBytes(e + textOffset, text);
        return new String(text, StandardCharsets.UTF_8);
    }
}
