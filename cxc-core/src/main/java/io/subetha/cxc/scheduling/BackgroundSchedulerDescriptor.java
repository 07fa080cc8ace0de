package io.subetha.cxc.scheduling;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.wake.DoorbellDescriptor;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Body layout of a {@link BackgroundScheduler} file. Offsets are relative to the body, which
 * follows the 64-byte common header. Little-endian. The header's capacity is the number of job
 * slots and timetable entries together (the body's entries field splits it), its slot size a slot's
 * and an entry's stride.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "BGSCHED1" (ASCII)                 0   |
 * +---------------------------------------------------------------+
 * |     Codec fingerprint (u64), job and result sizes (u32 each) 8 |
 * |                    (written by PrimitiveType)                 |
 * +---------------------------------------------------------------+
 * |                  Grace, nanoseconds (u64)                32   |
 * +---------------------------------------------------------------+
 * |   Timetable entries (u32)      40 |   Limits released (u32) 44 |
 * +---------------------------------------------------------------+
 * |                  Tail: next job id (u64), own 64 bytes    64  |
 * +---------------------------------------------------------------+
 * |                  Head: next id to dispatch (u64), own 64  128  |
 * +---------------------------------------------------------------+
 * |   Completions (u64), re-dispatched hint (u64),            192  |
 * |   reclaimed total (u64), collected total (u64)                 |
 * +---------------------------------------------------------------+
 * |   Timetable lock (u64, CAS)                               224  |
 * +---------------------------------------------------------------+
 * |   Timetable's next due, epoch ms (u64; a hint, see below) 232  |
 * +---------------------------------------------------------------+
 * |   Timetable fires total (u64)                             240  |
 * +---------------------------------------------------------------+
 * |   Dispatch paused: 0, or epoch ms it was paused at (u64) 248  |
 * +---------------------------------------------------------------+
 * |   Participant records, 64 bytes each, MAX_PARTICIPANTS:   256  |
 * |   an OwnerRecord (PID|generation, identity, heartbeat ns)      |
 * +---------------------------------------------------------------+
 * |   Job slots, capacity × stride:                          4352  |
 * |     the slot's header (256 bytes, below), then the job        |
 * |     payload and the result payload (each rounded up to 8)     |
 * +---------------------------------------------------------------+
 * |   Timetable entries, (entries field) × stride, from the       |
 * |   slots' end rounded up to 64 ({@link #timetableOffset})       |
 * +---------------------------------------------------------------+
 * |   Doorbell region ({@link DoorbellDescriptor}), from the      |
 * |   entries' end rounded up to 64 ({@link #doorbellOffset}):     |
 * |   idle workers announce themselves there before they sleep    |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p><b>Doorbell.</b> A worker waiting for a job ({@link BackgroundScheduler#receive(long,
 * Duration)}) sleeps on it; every write that makes a job receivable rings it: a submit's {@code
 * QUEUED} CAS (a timetable fire's too), a retry's or a scan's re-queue, a rerun, and a lowered
 * next-due word, so a sleeper bounds its sleep by the timetable's new next due (see {@link
 * WorkerDoorbell}).
 *
 * <p><b>A job slot's header</b> (offsets within the slot). Every field but the slot word is written
 * only by the one who holds the slot in {@code WRITING} (the submitter) or {@code COMPLETING} (the
 * worker recording an outcome), before the CAS that publishes the slot's next state; a reader reads
 * them after an acquire read of the slot word and keeps what it read only if the word is unchanged.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    Slot word (u64, CAS)                   0   |
 * +---------------------------------------------------------------+
 * |          Completion sequence of its result (u64)          8   |
 * +---------------------------------------------------------------+
 * |   Not before: CLOCK_MONOTONIC ns a retry waits for (u64)  16  |
 * +---------------------------------------------------------------+
 * |   Run base: the attempt this run counts after (u64)       24  |
 * +---------------------------------------------------------------+
 * |   Max attempts of a run (u32)  32 |   Flags (u32): bit 0   36  |
 * |                                   |   result discarded         |
 * +---------------------------------------------------------------+
 * |          Initial backoff, ns (u64)                        40  |
 * +---------------------------------------------------------------+
 * |          Max backoff, ns (u64)                            48  |
 * +---------------------------------------------------------------+
 * |          Backoff multiplier (IEEE 754 double)             56  |
 * +---------------------------------------------------------------+
 * |   Failure length (u32)         64 |   Handed back at (u32) 68  |
 * +---------------------------------------------------------------+
 * |   Failure: UTF-8 "exception class\nmessage", at most      72  |
 * |   FAILURE_TEXT_MAX bytes, cut at a character's boundary        |
 * +---------------------------------------------------------------+
 * |   Job payload                                            256  |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The retry policy (max attempts, backoffs, multiplier) and the flags are the submitter's,
 * written with the job: peers need not share them, and a rolling change of a scheduler's policy
 * applies to the jobs submitted after it. A run's attempts are those after its run base: 0 at
 * submit; a failure that leaves a job {@code FAILED} sets it to the job's attempt, so a {@code
 * rerun} gets the whole policy again while the attempt, the fence, keeps rising.
 *
 * <p><b>A timetable entry</b> (offsets within the entry; an entry is as long as a job slot). The
 * entry word is CASed; the other fields are written only by the one who holds the entry: a FREE
 * entry by the holder of the timetable lock (before the CAS that arms it), an entry {@code FIRING}
 * or {@code REARMING} by that word's participant (see {@link Timetable}).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    Entry word (u64, CAS)                  0   |
 * +---------------------------------------------------------------+
 * |   Due of an even fire number, epoch ms (u64)              8   |
 * +---------------------------------------------------------------+
 * |   Due of an odd fire number, epoch ms (u64)              16   |
 * +---------------------------------------------------------------+
 * |   Job id the current fire reserved (u64)                 24   |
 * +---------------------------------------------------------------+
 * |   Max attempts, flags, backoffs, multiplier: as a job    32   |
 * |   slot's, copied into the slot of each fire                   |
 * +---------------------------------------------------------------+
 * |   Fire number that job id belongs to (u64)               64   |
 * +---------------------------------------------------------------+
 * |   Name length (u32)            72 |   Spec length (u32)   76   |
 * +---------------------------------------------------------------+
 * |   Name, UTF-8, at most ENTRY_NAME_MAX bytes              80   |
 * +---------------------------------------------------------------+
 * |   Recurrence spec, UTF-8, at most ENTRY_SPEC_MAX bytes  144   |
 * +---------------------------------------------------------------+
 * |   First fire number of this name (u64)                  248   |
 * +---------------------------------------------------------------+
 * |   Job payload                                            256   |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p><b>Entry word</b>: bits 0..3 state ({@code ENTRY_FREE}, {@code ARMED}, {@code FIRING}, {@code
 * FIRED}, {@code REARMING}), bits 4..9 participant, bits 10..20 its generation, bits 21..63 the
 * fire number: fire {@code n} is due at the due field of {@code n}'s parity. The lock word is 0
 * when free, else {@code 1 | participant << 1 | generation << 7}.
 *
 * <p><b>Job ids.</b> A job's id is its position in the ring: job {@code id} lives in slot {@code id
 * % capacity}, lap {@code id / capacity}. A slot is free again once its result is collected, once
 * it completes if its result is discarded (fire and forget), or once it is deleted if it failed.
 *
 * <p><b>Slot word</b> (one CAS'd u64; every step of a job is one CAS on it):
 *
 * <pre>
 *  bits  0..23  lap (low 24 bits) of the job the slot holds or awaits
 *  bits 24..27  state: FREE, WRITING, QUEUED, RUNNING, COMPLETING, DONE, ABANDONED, COLLECTING,
 *               FAILED (9..15 unused: damage)
 *  bits 28..33  participant record of the submitter, worker, completer or collector
 *  bits 34..44  that record's generation (low 11 bits)
 *  bits 45..63  attempt (19 bits): 0 while first queued, +1 at each dispatch; the fence
 * </pre>
 *
 * <p>{@code COMPLETING} is held by the worker recording an outcome: a result (then {@code DONE}, or
 * {@code FREE} of the next lap if the result is discarded) or a failure (then {@code QUEUED} again
 * behind the head, not before its backoff, or {@code FAILED} once its run's attempts are spent). A
 * {@code FAILED} job is nobody's (participant 0, generation 0) and keeps its attempt: {@code rerun}
 * CASes it back to {@code QUEUED}, {@code delete} to {@code FREE} of the next lap.
 *
 * <p>An {@code ABANDONED} slot is stepped over by receivers. With participant 0, generation 0 and
 * attempt 0 it is nobody's, and the next lap's submit frees it. Stepped over from a submitter
 * silent beyond the grace, it keeps that writer's participant and generation and attempt {@link
 * #WRITER_HOLDS}: the writer may wake and still copy its job into it, so the next lap may not reuse
 * it until the writer lets it go (its second CAS fails, it CASes the slot to nobody's and submits
 * again) or a scan finds it dead.
 */
public final class BackgroundSchedulerDescriptor {

    public static final String MAGIC = "BGSCHED1";

    /**
     * 3: the timetable (the lock, next due and fires words, and the entries after the slots). 4:
     * the doorbell region after the timetable entries. 5: the timetable's size a setting, recorded
     * at 40 and counted in the header's capacity.
     */
    public static final int LAYOUT_VERSION = 5;

    public static final int GRACE_NANOS_OFFSET = 32;
    public static final int TIMETABLE_ENTRIES_OFFSET = 40;

    /**
     * Bumped each time a job-type limit's place is freed ({@link
     * BackgroundScheduler#limitReleased}); a job handed back at a limit records it (at {@link
     * #HANDED_BACK_AT_OFFSET}, as {@code 2 × value + 1}) and is due as soon as it moves.
     */
    public static final int LIMITS_RELEASED_OFFSET = 44;

    public static final int TAIL_OFFSET = 64;
    public static final int HEAD_OFFSET = 128;
    public static final int COMPLETIONS_OFFSET = 192;
    public static final int REQUEUED_HINT_OFFSET = 200;
    public static final int RECLAIMED_OFFSET = 208;
    public static final int COLLECTED_OFFSET = 216;

    public static final int TIMETABLE_LOCK_OFFSET = 224;
    public static final int NEXT_DUE_OFFSET = 232;
    public static final int FIRES_OFFSET = 240;

    /**
     * The pause word ({@link SchedulerDispatch}): an operator's setting, not a claim, so it
     * outlives the process that paused; zero in a new file, which dispatches.
     */
    public static final int PAUSED_OFFSET = 248;

    /** How many recurring and delayed jobs a scheduler's timetable holds unless set. */
    public static final int DEFAULT_TIMETABLE_ENTRIES = 64;

    /**
     * The most a timetable holds: every scan and every due look reads each entry's word, so the
     * size bounds a scan's cost (4096 words, a few microseconds).
     */
    public static final int MAX_TIMETABLE_ENTRIES = 4096;

    public static final int ENTRY_WORD_OFFSET = 0;
    public static final int ENTRY_DUE_OFFSET = 8;
    public static final int ENTRY_JOB_OFFSET = 24;
    public static final int ENTRY_JOB_FIRE_OFFSET = 64;
    public static final int ENTRY_NAME_LENGTH_OFFSET = 72;
    public static final int ENTRY_SPEC_LENGTH_OFFSET = 76;
    public static final int ENTRY_NAME_OFFSET = 80;
    public static final int ENTRY_SPEC_OFFSET = 144;
    public static final int ENTRY_NAME_MAX = ENTRY_SPEC_OFFSET - ENTRY_NAME_OFFSET;
    public static final int ENTRY_FIRST_FIRE_OFFSET = 248;
    public static final int ENTRY_SPEC_MAX = ENTRY_FIRST_FIRE_OFFSET - ENTRY_SPEC_OFFSET;

    public static final int ENTRY_FREE = 0;
    public static final int ARMED = 1;
    public static final int FIRING = 2;
    public static final int FIRED = 3;
    public static final int REARMING = 4;

    public static final long MAX_FIRE = (1L << 43) - 1;

    public static final int MAX_PARTICIPANTS = 64;
    public static final int PARTICIPANTS_OFFSET = 256;
    public static final int PARTICIPANT_STRIDE = 64;
    public static final int SLOTS_OFFSET =
            PARTICIPANTS_OFFSET + MAX_PARTICIPANTS * PARTICIPANT_STRIDE;

    public static final int SLOT_WORD_OFFSET = 0;
    public static final int SEQUENCE_OFFSET = 8;
    public static final int NOT_BEFORE_OFFSET = 16;
    public static final int RUN_BASE_OFFSET = 24;
    public static final int MAX_ATTEMPTS_OFFSET = 32;
    public static final int FLAGS_OFFSET = 36;
    public static final int INITIAL_BACKOFF_OFFSET = 40;
    public static final int MAX_BACKOFF_OFFSET = 48;
    public static final int MULTIPLIER_OFFSET = 56;
    public static final int FAILURE_LENGTH_OFFSET = 64;
    public static final int FAILURE_TEXT_OFFSET = 72;
    public static final int HANDED_BACK_AT_OFFSET = 68;
    public static final int JOB_OFFSET = 256;

    /** The most bytes of a failure's exception class and message a slot keeps. */
    public static final int FAILURE_TEXT_MAX = JOB_OFFSET - FAILURE_TEXT_OFFSET;

    /** The flag of a job whose result is discarded: its slot is free once it completes. */
    public static final int RESULT_DISCARDED = 1;

    public static final int MAX_CAPACITY = 1 << 20;
    public static final int MAX_PAYLOAD = 16 * 1024;

    public static final int FREE = 0;
    public static final int WRITING = 1;
    public static final int QUEUED = 2;
    public static final int RUNNING = 3;
    public static final int COMPLETING = 4;
    public static final int DONE = 5;
    public static final int ABANDONED = 6;
    public static final int COLLECTING = 7;
    public static final int FAILED = 8;

    /** A value the 4 state bits can hold that no step writes: a damaged slot. */
    public static final int UNUSED_STATE = 15;

    public static final long MAX_ATTEMPT = (1L << 19) - 1;

    /**
     * The attempt bits of an {@code ABANDONED} slot whose silent writer may still write into it.
     */
    public static final long WRITER_HOLDS = 1;

    private static final long LAP_MASK = (1L << 24) - 1;
    private static final long GENERATION_MASK = (1L << 11) - 1;

    public static final BodyLayout BODY_LAYOUT =
            (slotsAndEntries, slotSize) -> {
                if (slotsAndEntries < 2 || slotsAndEntries > MAX_CAPACITY + MAX_TIMETABLE_ENTRIES) {
                    throw new IllegalArgumentException(
                            "a scheduler holds 1.."
                                    + MAX_CAPACITY
                                    + " jobs and 1.."
                                    + MAX_TIMETABLE_ENTRIES
                                    + " timetable entries, not "
                                    + slotsAndEntries
                                    + " in all");
                }
                if (slotSize < JOB_OFFSET + 16
                        || slotSize > JOB_OFFSET + 2 * MAX_PAYLOAD
                        || slotSize % 8 != 0) {
                    throw new IllegalArgumentException(
                            "a job slot is a multiple of 8 bytes in "
                                    + (JOB_OFFSET + 16)
                                    + ".."
                                    + (JOB_OFFSET + 2 * MAX_PAYLOAD)
                                    + ", not "
                                    + slotSize);
                }
                // 64 more than the slots and entries end rounded up: room for the rounding of the
                // slots' end, wherever the header's count splits into slots and entries.
                long entriesEnd = (SLOTS_OFFSET + (long) slotsAndEntries * slotSize + 63) & ~63L;
                return entriesEnd + 64 + DoorbellDescriptor.LENGTH;
            };

    static {
        if (PrimitiveType.TYPED_BODY_START > GRACE_NANOS_OFFSET
                || OwnerRecord.LENGTH > PARTICIPANT_STRIDE) {
            throw new ExceptionInInitializerError("background-scheduler layout overlaps");
        }
    }

    private BackgroundSchedulerDescriptor() {}

    /** Why a body's settings are not a scheduler's, or null: the file's grace is checked. */
    static @Nullable String bodyProblem(AtomicBuffer body) {
        long grace = body.getLongAcquire(GRACE_NANOS_OFFSET);
        if (grace <= 0 || grace > Duration.ofDays(1).toNanos()) {
            return "it declares a grace of " + grace + " ns, outside 1 ns .. 1 day";
        }
        return null;
    }

    /**
     * Why the body's payload sizes do not give the header's stride, or its timetable size does not
     * split the header's capacity; or null.
     */
    static @Nullable String shapeProblem(FileHeader header, AtomicBuffer body) {
        int jobSize = body.getIntAcquire(PrimitiveType.CODEC_SIZES_OFFSET);
        int resultSize = body.getIntAcquire(PrimitiveType.CODEC_SIZES_OFFSET + 4);
        if (jobSize < 0
                || resultSize < 0
                || jobSize > MAX_PAYLOAD
                || resultSize > MAX_PAYLOAD
                || slotStride(jobSize, resultSize) != header.slotSize()) {
            return "it declares "
                    + Integer.toUnsignedString(jobSize)
                    + "-byte jobs and "
                    + Integer.toUnsignedString(resultSize)
                    + "-byte results in "
                    + header.slotSize()
                    + "-byte slots, which do not fit them";
        }
        int entries = body.getIntAcquire(TIMETABLE_ENTRIES_OFFSET);
        long jobs = (long) header.capacity() - entries;
        if (entries < 1 || entries > MAX_TIMETABLE_ENTRIES || jobs < 1 || jobs > MAX_CAPACITY) {
            return "it declares "
                    + Integer.toUnsignedString(entries)
                    + " timetable entries of its "
                    + Integer.toUnsignedString(header.capacity())
                    + " slots and entries, which leaves no 1.."
                    + MAX_CAPACITY
                    + " job slots (or is outside 1.."
                    + MAX_TIMETABLE_ENTRIES
                    + ")";
        }
        return null;
    }

    /** Refuses creation settings no file can have, naming the setting. */
    static void requireSettings(
            int capacity,
            FixedCodec<?> jobCodec,
            FixedCodec<?> resultCodec,
            Duration grace,
            int timetableEntries) {
        CxcSettingsException.requireInRange("capacity", capacity, 1, MAX_CAPACITY, " jobs");
        CxcSettingsException.requireInRange(
                "timetableEntries",
                timetableEntries,
                1,
                MAX_TIMETABLE_ENTRIES,
                " recurring and delayed jobs");
        requirePayloadSize("jobCodec", jobCodec);
        requirePayloadSize("resultCodec", resultCodec);
        CxcSettingsException.requireBodyFits(
                "capacity",
                "capacity "
                        + capacity
                        + " of "
                        + jobCodec.size()
                        + "-byte jobs and "
                        + resultCodec.size()
                        + "-byte results and "
                        + timetableEntries
                        + " timetable entries",
                BODY_LAYOUT.bodyLength(
                        capacity + timetableEntries,
                        slotStride(jobCodec.size(), resultCodec.size())),
                HeaderDescriptor.MAX_BODY_LENGTH);
        if (grace.isNegative() || grace.isZero() || grace.compareTo(Duration.ofDays(1)) > 0) {
            throw new CxcSettingsException(
                    "grace", "grace must be more than 0 and at most 1 day, got " + grace);
        }
    }

    /** Refuses a codec whose values a slot cannot hold. */
    static void requirePayloadSize(String setting, FixedCodec<?> codec) {
        if (codec.size() > MAX_PAYLOAD) {
            throw new CxcSettingsException(
                    setting,
                    setting
                            + " must encode at most "
                            + MAX_PAYLOAD
                            + " bytes, got "
                            + codec.size()
                            + " ("
                            + codec.describe()
                            + ")");
        }
    }

    public static int rounded(int payload) {
        return (Math.max(payload, 1) + 7) & ~7;
    }

    public static int slotStride(int jobSize, int resultSize) {
        return JOB_OFFSET + rounded(jobSize) + rounded(resultSize);
    }

    /**
     * Where the timetable's entries start: after the slots, rounded up to 64 (within a body whose
     * length {@link #BODY_LAYOUT} checked).
     */
    public static int timetableOffset(int capacity, int slotSize) {
        return (int) ((SLOTS_OFFSET + (long) capacity * slotSize + 63) & ~63L);
    }

    /**
     * Where the doorbell region starts: after the timetable's {@code entries}, rounded up to 64
     * (within a body whose length {@link #BODY_LAYOUT} checked).
     */
    public static int doorbellOffset(int capacity, int entries, int slotSize) {
        return (timetableOffset(capacity, slotSize) + entries * slotSize + 63) & ~63;
    }

    public static long entryWord(int state, int participant, long generation, long fire) {
        return state
                | ((long) participant << 4)
                | ((generation & GENERATION_MASK) << 10)
                | ((fire & MAX_FIRE) << 21);
    }

    public static int entryState(long word) {
        return (int) (word & 15);
    }

    public static int entryParticipant(long word) {
        return (int) ((word >>> 4) & 0x3F);
    }

    public static long entryGeneration(long word) {
        return (word >>> 10) & GENERATION_MASK;
    }

    public static long entryFire(long word) {
        return word >>> 21;
    }

    public static long lockWord(int participant, long generation) {
        return 1 | ((long) participant << 1) | ((generation & GENERATION_MASK) << 7);
    }

    public static int participantOffset(int participant) {
        return PARTICIPANTS_OFFSET + participant * PARTICIPANT_STRIDE;
    }

    public static long pack(long lap, int state, int participant, long generation, long attempt) {
        return (lap & LAP_MASK)
                | ((long) state << 24)
                | ((long) participant << 28)
                | ((generation & GENERATION_MASK) << 34)
                | ((attempt & MAX_ATTEMPT) << 45);
    }

    /** {@code word} with its state replaced, every other field kept. */
    public static long withState(long word, int state) {
        return (word & ~(15L << 24)) | ((long) state << 24);
    }

    /** A silent writer's {@code WRITING} word, stepped over: see {@link #WRITER_HOLDS}. */
    public static long steppedOver(long writing) {
        return (withState(writing, ABANDONED) & ~(MAX_ATTEMPT << 45)) | (WRITER_HOLDS << 45);
    }

    /** Whether {@code word} is an {@code ABANDONED} slot its silent writer may still write into. */
    public static boolean writerHolds(long word) {
        return state(word) == ABANDONED && attempt(word) == WRITER_HOLDS;
    }

    public static long lapTag(long lap) {
        return lap & LAP_MASK;
    }

    public static long lapOf(long word) {
        return word & LAP_MASK;
    }

    public static int state(long word) {
        return (int) ((word >>> 24) & 15);
    }

    public static int participant(long word) {
        return (int) ((word >>> 28) & 0x3F);
    }

    public static long generation(long word) {
        return (word >>> 34) & GENERATION_MASK;
    }

    public static long generationTag(long generation) {
        return generation & GENERATION_MASK;
    }

    public static long attempt(long word) {
        return word >>> 45;
    }
}
