package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.participant.ParticipantRecord;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A job scheduler in one mapped file, its roles in any processes: submitters {@link #submit} jobs,
 * workers {@link #receive} and run them and {@link #complete} them with a result, collectors gather
 * the results ({@link #collector()}), and a watchdog ({@link #watchdogScan()}) puts the jobs of
 * dead or silent workers back in the queue. Layout: {@link BackgroundSchedulerDescriptor}.
 *
 * <p><b>Participants.</b> Each handle that submits, works or collects first claims a participant
 * record through {@link OwnerRecord} (PID, start time, generation, heartbeat in {@code
 * CLOCK_MONOTONIC} ns); a job slot names the record and generation that holds it. A worker's handle
 * beats as it works; one running a job longer than the grace calls {@link #heartbeat()}.
 *
 * <p><b>Protocol: one CAS per step, on the job's slot word</b>, which also carries the attempt:
 *
 * <ul>
 *   <li><b>Submit</b>: CAS the tail's slot {@code FREE → WRITING(me)}, move the tail (anyone who
 *       sees the slot taken helps), write the job, CAS {@code → QUEUED(attempt 0)}. Killed after
 *       the first CAS: a scan marks the slot {@code ABANDONED}, which workers step over (no id was
 *       returned, so nothing acknowledged is lost). Silent there beyond the grace (a GC, {@code
 *       SIGSTOP}): a scan steps the slot over as well, so it holds up no dispatch, but keeps it
 *       from the next lap; the writer's second CAS then fails, it lets the slot go and submits
 *       again under a new id, so the job runs once.
 *   <li><b>Receive</b>: at the head, CAS {@code QUEUED(a) → RUNNING(me, a + 1)}, move the head,
 *       copy the job, and keep the copy only if the slot still holds that word: a worker paused
 *       between its CAS and its copy beyond the grace may find the job re-queued, run, collected
 *       and the slot refilled, and must not run the new payload under the old id. Re-queued jobs
 *       (behind the head) are received first, oldest id first, with the same check.
 *   <li><b>Complete</b>: CAS exactly the dispatched word {@code RUNNING(me, a) → COMPLETING(me,
 *       a)}, write the result and its completion number, publish {@code DONE(a)}. The CAS is the
 *       fence: once the job was re-queued (or re-dispatched, as attempt {@code a + 1}), the old
 *       attempt's CAS fails and {@code complete} returns false, so a result is recorded at most
 *       once; and since a job leaves {@code RUNNING}/{@code COMPLETING} only to {@code DONE},
 *       {@code FAILED} or back to the queue, it is recorded at least once as long as some worker
 *       runs it. A fire-and-forget job's complete is the one CAS {@code RUNNING(me, a) → FREE}
 *       (next lap): nothing is recorded, and its slot needs no collector.
 *   <li><b>Fail</b>: CAS {@code RUNNING(me, a) → COMPLETING(me, a)}, write the failure and either
 *       the retry's not-before time (then raise the re-queued hint and CAS {@code → QUEUED(a)},
 *       behind the head; receivers skip it until it is due) or the run's end (CAS {@code →
 *       FAILED(a)}, nobody's). The policy is the submitter's, written with the job. Killed after
 *       the first CAS, the job is a dead worker's {@code COMPLETING} one: a scan re-queues it.
 *       {@link #rerun} is the one CAS {@code FAILED(a) → QUEUED(a)} (hint raised first), {@link
 *       #delete} {@code FAILED → FREE} (next lap); neither claims a record, so any process may.
 *   <li><b>Watchdog</b>: a dead worker's {@code RUNNING} and {@code COMPLETING} jobs, and a silent
 *       one's {@code RUNNING} jobs, are CASed back to {@code QUEUED(a)} (a silent completer may
 *       still be writing its result, so its {@code COMPLETING} job is left to it); a dead or silent
 *       submitter's {@code WRITING} slot becomes {@code ABANDONED} (a silent one's kept from reuse
 *       until it lets it go or dies); a dead participant's record is freed once its slots are
 *       repaired. A scanner killed midway leaves the record held by a dead PID, so the next scan
 *       finishes the job.
 *   <li><b>Collect</b>: read a {@code DONE} slot's result, then CAS {@code DONE(a) → COLLECTING(me,
 *       a)}: the winner alone delivers it; its acknowledgement CASes exactly that word to {@code
 *       FREE} (next lap). A collector dead, silent beyond the grace or closed before acknowledging
 *       has its {@code COLLECTING} slots CASed back to {@code DONE} by a scan (or its close), and
 *       its late acknowledgement fails: a result is delivered until acknowledged (see {@link
 *       ResultCollector}).
 * </ul>
 *
 * <p><b>Timetable.</b> Recurring jobs ({@link #schedule}) and jobs due later ({@link
 * JobOptions#at}) wait in the file's timetable and are submitted once per due time, by whichever
 * process polls first ({@link #receive} looks at one word while nothing is due); a dead firer's
 * fire is judged from the one slot it recorded, so it is made exactly once: see {@link Timetable}.
 *
 * <p>{@link #receive} scans on its own at most every {@link #SCAN_INTERVAL}, so workers alone
 * recover a killed worker's job; the Spring Boot starter's ticker scans too.
 *
 * <p>Thread-safe.
 */
public final class BackgroundScheduler<J, R> extends MappedPrimitive {

    /** How long a participant may stay silent before its running jobs are re-queued. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(2);

    /**
     * What a submit answers for a job {@link JobOptions#due() due} later: it waits in the timetable
     * (listed by {@link #timetable()} under an {@code @} name) and gets its id when due.
     */
    public static final long DELAYED = Long.MIN_VALUE;

    /** The longest a receiving worker goes between two scans of its own. */
    public static final Duration SCAN_INTERVAL = Duration.ofMillis(50);

    /** The ops a scheduler counts. */
    public enum Op implements OpKind {
        SUBMIT(1),
        /** A receive that returned a job. */
        RECV(2),
        WATCHDOG_SCAN(3),
        COMPLETE(4),
        COLLECT(5),
        /** A worker's report of a failed attempt. */
        FAIL(6),
        RERUN(7),
        DELETE(8),
        /** A look at the timetable that fired one or more due entries. */
        FIRE(9),
        SCHEDULE(10),
        UNSCHEDULE(11);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /**
     * A scheduler's creation settings.
     *
     * @param capacity jobs the file holds, queued, running or with an uncollected result:
     *     1..{@value BackgroundSchedulerDescriptor#MAX_CAPACITY}
     * @param jobCodec the jobs' codec, at most {@value BackgroundSchedulerDescriptor#MAX_PAYLOAD}
     *     bytes
     * @param resultCodec the results' codec, at most {@value
     *     BackgroundSchedulerDescriptor#MAX_PAYLOAD} bytes
     * @param grace how long a worker may stay silent before its running jobs are re-queued
     * @param retry the retry policy of the jobs this handle submits (unless a submit gives its
     *     own): each job carries its policy, so peers need not share it
     * @param fireAndForget whether the jobs this handle submits have their results discarded: a
     *     scheduler nobody collects from
     * @param timetableEntries recurring and delayed jobs the file's timetable holds: 1..{@value
     *     BackgroundSchedulerDescriptor#MAX_TIMETABLE_ENTRIES}, fixed at create
     */
    public record Settings<J, R>(
            int capacity,
            FixedCodec<J> jobCodec,
            FixedCodec<R> resultCodec,
            Duration grace,
            RetryPolicy retry,
            boolean fireAndForget,
            int timetableEntries) {
        public Settings {
            requireSettings(capacity, jobCodec, resultCodec, grace, timetableEntries);
        }

        public Settings(
                int capacity,
                FixedCodec<J> jobCodec,
                FixedCodec<R> resultCodec,
                Duration grace,
                RetryPolicy retry,
                boolean fireAndForget) {
            this(
                    capacity,
                    jobCodec,
                    resultCodec,
                    grace,
                    retry,
                    fireAndForget,
                    DEFAULT_TIMETABLE_ENTRIES);
        }

        public Settings(
                int capacity, FixedCodec<J> jobCodec, FixedCodec<R> resultCodec, Duration grace) {
            this(capacity, jobCodec, resultCodec, grace, RetryPolicy.DEFAULT, false);
        }

        public Settings(int capacity, FixedCodec<J> jobCodec, FixedCodec<R> resultCodec) {
            this(capacity, jobCodec, resultCodec, DEFAULT_GRACE);
        }

        /** These settings with {@code retry} for the jobs submitted without one. */
        public Settings<J, R> withRetry(RetryPolicy retry) {
            return new Settings<>(
                    capacity, jobCodec, resultCodec, grace, retry, fireAndForget, timetableEntries);
        }

        /** These settings with every job's result discarded (or kept) unless a submit says so. */
        public Settings<J, R> withFireAndForget(boolean discard) {
            return new Settings<>(
                    capacity, jobCodec, resultCodec, grace, retry, discard, timetableEntries);
        }

        /** These settings with a timetable of {@code entries} recurring and delayed jobs. */
        public Settings<J, R> withTimetableEntries(int entries) {
            return new Settings<>(
                    capacity, jobCodec, resultCodec, grace, retry, fireAndForget, entries);
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<BackgroundScheduler<?, ?>, Settings<?, ?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<BackgroundScheduler, Settings>define(
                                    PrimitiveKinds.BACKGROUND_SCHEDULER, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    s ->
                                            new PrimitiveType.Shape(
                                                    s.capacity() + s.timetableEntries(),
                                                    slotStride(
                                                            s.jobCodec().size(),
                                                            s.resultCodec().size())),
                                    BODY_LAYOUT)
                            .codecs(s -> List.of(s.jobCodec(), s.resultCodec()))
                            .initialiser(
                                    (body, s) -> {
                                        body.setLongPlain(GRACE_NANOS_OFFSET, s.grace().toNanos());
                                        body.setIntPlain(
                                                TIMETABLE_ENTRIES_OFFSET, s.timetableEntries());
                                    })
                            .bodyCheck(BackgroundSchedulerDescriptor::bodyProblem)
                            .shapeCheck(BackgroundSchedulerDescriptor::shapeProblem)
                            .defaults(new Settings<>(1024, FixedCodec.INT64, FixedCodec.INT64))
                            .construct(
                                    (file, settings, options) ->
                                            new BackgroundScheduler(file, settings));

    private static final long OWN_PID = Pids.current();

    private final int capacity;
    private final int stride;
    private final int jobSize;
    private final int resultOffset;
    private final long graceNanos;
    private final FixedCodec<J> jobCodec;
    private final FixedCodec<R> resultCodec;
    private final RetryPolicy retry;
    private final boolean fireAndForget;
    private final JobFailures failures;
    private final JobListing listing;
    private final ResultCollector<R> collector;
    // This handle's participant record, claimed when it first submits, works or collects.
    private final ParticipantRecord participant;
    private volatile long lastScan = System.nanoTime();
    private final JobRing ring;
    private final RingSubmitter submitter;
    private final JobDispatcher<J> dispatcher;
    private final Timetable timetable;
    private final SlotSweeper sweeper;
    private final JobCompletion<R> completion;
    private final WorkerDoorbell workers;
    private final SchedulerDispatch dispatch;

    private BackgroundScheduler(MappedFile file, Settings<J, R> settings) {
        super(file, TYPE);
        this.jobCodec = settings.jobCodec();
        this.resultCodec = settings.resultCodec();
        this.retry = settings.retry();
        this.fireAndForget = settings.fireAndForget();
        // shapeProblem() checked that the entries split the header's count, leaving 1.. slots,
        // and that the payload sizes give its stride.
        int entries = body.getIntAcquire(TIMETABLE_ENTRIES_OFFSET);
        this.capacity = file.header().capacity() - entries;
        this.stride = file.header().slotSize();
        this.jobSize = body.getIntAcquire(PrimitiveType.CODEC_SIZES_OFFSET);
        this.resultOffset = JOB_OFFSET + rounded(jobSize);
        this.graceNanos = body.getLongAcquire(GRACE_NANOS_OFFSET);
        this.failures = new JobFailures(body, capacity, stride, this::wakeWorkers);
        this.listing = new JobListing(body, capacity, stride);
        this.participant =
                new ParticipantRecord(
                        body,
                        MAX_PARTICIPANTS,
                        BackgroundSchedulerDescriptor::participantOffset,
                        graceNanos,
                        OWN_PID,
                        file.path(),
                        this::requireOpen,
                        this::watchdogScan);
        this.ring = new JobRing(body, capacity, stride, this::damaged);
        this.submitter = new RingSubmitter(ring, participant, this::wakeWorkers);
        this.dispatcher = new JobDispatcher<>(ring, jobCodec, participant);
        this.workers =
                new WorkerDoorbell(
                        body,
                        doorbellOffset(capacity, entries, stride),
                        file.path(),
                        dispatcher,
                        () -> lastScan + SCAN_INTERVAL.toNanos(),
                        this::isClosed);
        this.timetable =
                new Timetable(
                        ring,
                        submitter,
                        participant,
                        file.path(),
                        rounded(jobSize),
                        entries,
                        graceNanos,
                        this::watchdogScan,
                        workers::ring);
        this.sweeper = new SlotSweeper(ring, timetable, workers::ring);
        this.dispatch = new SchedulerDispatch(body, this::requireOpen, workers::ring);
        this.completion = new JobCompletion<>(ring, resultOffset, resultCodec, participant);
        this.collector =
                new SlotCollector<>(
                        body,
                        capacity,
                        stride,
                        resultOffset,
                        resultCodec,
                        participant,
                        () -> countOp(Op.COLLECT),
                        this::enter,
                        this::passFileCheck,
                        () -> ring.position(HEAD_OFFSET, "head"),
                        this::damaged);
    }

    // ---------------------------------------------------------------------------- factories

    /**
     * Opens an existing scheduler created with {@code settings}' capacity and codec layouts (its
     * grace is the one the file records).
     */
    public static <J, R> BackgroundScheduler<J, R> open(Path path, Settings<J, R> settings) {
        return TYPE.open(path, settings);
    }

    /** Opens the scheduler, or creates it with {@code settings}; race-safe across processes. */
    public static <J, R> BackgroundScheduler<J, R> openOrCreate(
            Path path, Settings<J, R> settings) {
        return TYPE.openOrCreate(path, settings);
    }

    // ------------------------------------------------------------------------------ submit

    /**
     * Queues {@code job}.
     *
     * @return its id
     * @throws CxcCapacityException if {@code capacity} jobs are queued, running or awaiting
     *     collection
     */
    public long submit(J job) {
        return submit(job, JobOptions.DEFAULT);
    }

    /**
     * Queues {@code job} as {@code options} say (fire and forget, its own retry policy, due later).
     * A job due later waits in the timetable, which survives every process's restart, and is queued
     * once, by whichever process polls first once it is due.
     *
     * @return its id, or {@link #DELAYED} for a job due later
     * @throws CxcCapacityException if {@code capacity} jobs are queued, running, awaiting
     *     collection or failed (or, for a job due later, the timetable is full)
     */
    public long submit(J job, JobOptions options) {
        long id = trySubmit(job, options);
        if (id == -1 && options.due() != null) {
            throw timetable.full();
        }
        if (id == -1) {
            throw new CxcCapacityException(
                    file.path()
                            + " is full: it holds "
                            + capacity
                            + " jobs (capacity) queued, running, failed or with a result not yet"
                            + " collected; collect results, re-run or delete failed jobs, submit"
                            + " fire-and-forget jobs, or create the scheduler with a larger"
                            + " capacity in a new file");
        }
        return id;
    }

    /** Queues {@code job}; its id, or -1 if the scheduler is full. */
    public long trySubmit(J job) {
        return trySubmit(job, JobOptions.DEFAULT);
    }

    /**
     * Queues {@code job} as {@code options} say; its id, or -1 if the scheduler (or, for a job due
     * later, its timetable) is full, or {@link #DELAYED} for a job due later.
     */
    public long trySubmit(J job, JobOptions options) {
        if (job == null) {
            throw new IllegalArgumentException("job must not be null");
        }
        enter();
        try {
            return submitEntered(job, options);
        } finally {
            participant.exit();
        }
    }

    private long submitEntered(J job, JobOptions options) {
        FixedCodec<J> codec = jobCodec;
        RetryPolicy policy = options.retry() != null ? options.retry() : retry;
        int flags = options.discardResult() || fireAndForget ? RESULT_DISCARDED : 0;
        countOp(Op.SUBMIT);
        Instant due = options.due();
        if (due != null && due.toEpochMilli() > System.currentTimeMillis()) {
            // Before the entry is taken: a job that fails to encode fails here.
            byte[] payload = Timetable.encoded(jobCodec, jobSize, job);
            try {
                timetable.schedule(
                        "",
                        Timetable.ONCE,
                        due.toEpochMilli(),
                        e -> timetable.writeRun(e, payload, policy, flags));
            } catch (CxcCapacityException full) {
                return -1;
            }
            return DELAYED;
        }
        return submitter.submit(
                slot -> {
                    failures.writeRun(slot, policy, flags);
                    codec.write(body, slot + JOB_OFFSET, job);
                },
                RingSubmitter.UNRECORDED);
    }

    // --------------------------------------------------------------------------- timetable

    /**
     * Schedules a recurring job: {@code payload} is submitted as a job each time {@code recurrence}
     * is due, exactly once per due time across every process that works this file (the fire is made
     * by whichever of them polls first: {@link #receive} polls, so does the Spring Boot starter's
     * ticker). Fires missed while no process ran are coalesced into one fire, and the recurrence
     * resumes from it (see {@link Recurrence#nextAfterFire}). The timetable lives in the file: it
     * survives every process's restart.
     *
     * <p>Idempotent per name, so every copy of a service may schedule its jobs at start: an entry
     * of that name is replaced (its payload and options rewritten), and keeps its due time if its
     * recurrence is unchanged.
     *
     * @param name up to {@value BackgroundSchedulerDescriptor#ENTRY_NAME_MAX} UTF-8 bytes, not
     *     starting with {@code @}
     * @param options the jobs' result handling and retry policy, and (its {@code due}) the first
     *     due time: else {@code recurrence}'s first after now
     * @return true if the name was new
     * @throws CxcCapacityException if the timetable holds {@link Settings#timetableEntries()}
     *     entries already
     * @throws IllegalArgumentException if the name or payload is not allowed, or {@code
     *     recurrence}'s spec does not read back (no {@link RecurrenceFormat} for its kind)
     */
    public boolean schedule(String name, Recurrence recurrence, J payload, JobOptions options) {
        Timetable.requireName(name);
        if (recurrence == null || payload == null || options == null) {
            throw new IllegalArgumentException("recurrence, payload and options must not be null");
        }
        String spec = Timetable.requireSpec(recurrence);
        RetryPolicy policy = options.retry() != null ? options.retry() : retry;
        int flags = options.discardResult() || fireAndForget ? RESULT_DISCARDED : 0;
        long first =
                (options.due() != null ? options.due() : recurrence.next(Instant.now()))
                        .toEpochMilli();
        byte[] encoded = Timetable.encoded(jobCodec, jobSize, payload);
        enter();
        try {
            countOp(Op.SCHEDULE);
            return timetable.schedule(
                    name, spec, first, e -> timetable.writeRun(e, encoded, policy, flags));
        } finally {
            participant.exit();
        }
    }

    /** {@link #schedule(String, Recurrence, Object, JobOptions)} with the scheduler's options. */
    public boolean schedule(String name, Recurrence recurrence, J payload) {
        return schedule(name, recurrence, payload, JobOptions.DEFAULT);
    }

    /**
     * Takes a recurring job, or a delayed one (by its listed {@code @} name), out of the timetable;
     * false if none has that name. Its jobs already submitted are not touched.
     */
    public boolean unschedule(String name) {
        if (name == null) {
            throw new IllegalArgumentException("name must not be null");
        }
        enter();
        try {
            countOp(Op.UNSCHEDULE);
            return timetable.unschedule(name);
        } finally {
            participant.exit();
        }
    }

    /** The recurring and delayed jobs in the timetable now; reads only. */
    public List<TimetableEntry> timetable() {
        return timetable.entries();
    }

    /**
     * Fires the timetable's due entries now; the fires made. {@link #receive} does it at each poll,
     * at the cost of one read while nothing is due: call this where no worker polls.
     */
    public int fireDue() {
        enter();
        try {
            int fired = timetable.fireDue(System.currentTimeMillis());
            if (fired > 0) {
                countOp(Op.FIRE);
            }
            return fired;
        } finally {
            participant.exit();
        }
    }

    // ----------------------------------------------------------------------------- receive

    /**
     * Claims the next queued job for this worker: re-queued jobs first, then in submission order.
     *
     * @param workerPid this process's PID: a worker receives only for itself
     * @return the job, or empty if none is queued
     */
    public Optional<Job<J>> receive(long workerPid) {
        JobDispatcher.requireOwn(workerPid, OWN_PID);
        Optional<Job<J>> job;
        enter();
        try {
            job = receiveEntered();
        } finally {
            participant.exit();
        }
        if (job.isPresent()) {
            countOp(Op.RECV); // an idle worker's polls are not receives
        }
        return job;
    }

    /**
     * {@link #receive(long)}, waiting up to {@code timeout} for a job: between looks the worker
     * sleeps on the scheduler's doorbell, which a submit, a fire, a re-queue or a rerun in any
     * process rings, and wakes by itself when a retry's backoff ends, the timetable's next entry
     * falls due or its handle's scan does.
     *
     * @return the job, or empty if none came within {@code timeout} (or on interruption or close)
     */
    public Optional<Job<J>> receive(long workerPid, Duration timeout) {
        return receive(workerPid, timeout, () -> false);
    }

    /**
     * {@link #receive(long, Duration)}, giving up as soon as {@code giveUp} says so: a pool's stop,
     * which then calls {@link #wakeWorkers}. {@code giveUp} is asked after every wake-up.
     */
    public Optional<Job<J>> receive(long workerPid, Duration timeout, BooleanSupplier giveUp) {
        JobDispatcher.requireOwn(workerPid, OWN_PID);
        return workers.receive(() -> receive(workerPid), timeout, giveUp);
    }

    /** Wakes every worker asleep in a receive, in any process: each looks again. */
    public void wakeWorkers() {
        workers.ring();
    }

    private Optional<Job<J>> receiveEntered() {
        long now = System.nanoTime();
        if (now - lastScan > SCAN_INTERVAL.toNanos()) {
            watchdogScan();
        }
        if (timetable.fireDue(System.currentTimeMillis()) > 0) {
            countOp(Op.FIRE);
        }
        return Optional.ofNullable(dispatcher.receive(now));
    }

    // ---------------------------------------------------------------------------- complete

    /**
     * Records {@code result} for {@code job}; for a {@link Job#fireAndForget() fire-and-forget}
     * job, discards it and frees the job's slot.
     *
     * @return false if this attempt no longer holds the job (it was re-queued or re-dispatched
     *     after this worker was judged dead or silent): the result is not recorded
     */
    public boolean complete(Job<J> job, R result) {
        if (result == null) {
            throw new IllegalArgumentException("result must not be null");
        }
        if (!participant.enter()) {
            return false; // closed: its close re-queued the job, or will as it leaves
        }
        try {
            countOp(Op.COMPLETE);
            return completion.complete(job, result);
        } finally {
            participant.exit();
        }
    }

    // -------------------------------------------------------------------------------- fail

    /**
     * Reports that {@code job}'s attempt failed with {@code failure}. While the job's run has
     * attempts left under its retry policy it is queued again, to be dispatched (in any process)
     * once its backoff has passed; otherwise it is {@code FAILED}, keeping {@code failure}'s class
     * and message (cut to {@value BackgroundSchedulerDescriptor#FAILURE_TEXT_MAX} bytes) and its
     * attempts, until {@link #rerun} or {@link #delete}. Like {@link #complete}, one CAS from the
     * dispatched word fences it: only the attempt that still holds the job records its failure.
     */
    public FailOutcome fail(Job<J> job, Throwable failure) {
        if (failure == null) {
            throw new IllegalArgumentException("failure must not be null");
        }
        countOp(Op.FAIL);
        return fenced(() -> failures.record(job, failure));
    }

    /**
     * Gives {@code job} back unrun, queued again not before {@code wait} or the next {@link
     * #limitReleased}, this dispatch counting as no attempt (a concurrency limit's); fenced like
     * {@link #fail}: REFUSED if it is not held.
     */
    public FailOutcome handBack(Job<J> job, Duration wait) {
        return fenced(() -> failures.handBack(job, wait.toNanos()));
    }

    /** Says a job-type limit's place was freed, in any process: handed-back jobs are due now. */
    public void limitReleased() {
        if (!isClosed()) { // a run ending as the pool stops: its job's close re-queued it
            failures.limitReleased();
        }
    }

    /** A step of a dispatched job's holder, inside this handle's participant record. */
    private FailOutcome fenced(Supplier<FailOutcome> step) {
        if (!participant.enter()) {
            return FailOutcome.REFUSED; // closed: its close re-queued the job, or will as it leaves
        }
        try {
            FailOutcome outcome = step.get();
            if (outcome != FailOutcome.REFUSED) {
                participant.beatIfDue();
            }
            return outcome;
        } finally {
            participant.exit();
        }
    }

    /**
     * Queues a {@code FAILED} job again, with its retry policy's attempts anew; callable from any
     * process. False if {@code jobId} is not failed (re-run or deleted already, or never failed).
     */
    public boolean rerun(long jobId) {
        requireOpen();
        boolean rerun = failures.rerun(jobId);
        if (rerun) {
            countOp(Op.RERUN);
        }
        return rerun;
    }

    /**
     * Deletes a {@code FAILED} job: its slot is free again. False if {@code jobId} is not failed.
     */
    public boolean delete(long jobId) {
        requireOpen();
        boolean deleted = failures.delete(jobId);
        if (deleted) {
            countOp(Op.DELETE);
        }
        return deleted;
    }

    // ---------------------------------------------------------------------------- collect

    /** The results' side: poll in completion order, or look one up by job id. */
    public ResultCollector<R> collector() {
        return collector;
    }

    // ---------------------------------------------------------------------------- watchdog

    /**
     * Puts the running jobs of dead or silent workers back in the queue, steps over slots dead or
     * silent submitters left half-written, hands back results dead or silent collectors polled and
     * did not acknowledge, and frees dead participants' records.
     */
    public ReclaimReport watchdogScan() {
        countOp(Op.WATCHDOG_SCAN);
        lastScan = System.nanoTime();
        List<Long> requeued = new ArrayList<>();
        int[] abandoned = new int[1];
        int dead =
                participant.judgeAll(
                        (record, generation, isDead) ->
                                sweeper.sweep(record, generation, isDead, requeued, abandoned));
        timetable.lowerNextDue(); // after a looker killed midway, or a repaired fire
        dispatcher.lookAgain(); // a look missed by a re-queue racing it: look again
        return new ReclaimReport(requeued, abandoned[0], dead);
    }

    // ------------------------------------------------------------------------ participants

    /** Beats this handle's participant record; a worker running a long job calls it. */
    public void heartbeat() {
        participant.heartbeat();
    }

    // ------------------------------------------------------------------------------ reads

    /**
     * Counts by state, a moment's view: queued (retries waiting their backoff included), running,
     * done (not yet acknowledged), failed (not yet re-run or deleted).
     */
    public record Counts(
            long queued, long running, long done, long reclaimed, long collected, long failed) {

        public Counts(long queued, long running, long done, long reclaimed, long collected) {
            this(queued, running, done, reclaimed, collected, 0);
        }
    }

    public Counts counts() {
        passFileCheck();
        return listing.counts();
    }

    /**
     * Every job the ring holds now, oldest id first: queued, running (with its worker's PID), done
     * and not yet acknowledged by a collector, or failed (with its last failure) and not yet re-run
     * or deleted. An operator's view (a console, an inspector), slot by slot and not atomic across
     * slots; reads only, counts no op. A slot being written is not yet a job and is left out.
     */
    public List<JobEntry> jobs() {
        return listing.jobs();
    }

    public int capacity() {
        return capacity;
    }

    public Duration grace() {
        return Duration.ofNanos(graceNanos);
    }

    /** Pauses and resumes the dispatch of jobs in every process: an operator's switch. */
    public SchedulerDispatch dispatch() {
        return dispatch;
    }

    @Override
    public Map<String, Object> describe() {
        Counts c = counts();
        return fields(
                "capacity", capacity,
                "queued", c.queued(),
                "running", c.running(),
                "done", c.done(),
                "reclaimed", c.reclaimed(),
                "collected", c.collected(),
                "failed", c.failed(),
                "graceMillis", Duration.ofNanos(graceNanos).toMillis(),
                "timetable", timetable.entries().stream().map(TimetableEntry::summary).toList(),
                "timetableCapacity", timetable.capacity(),
                "fires", timetable.fires(),
                "sleepingWorkers", workers.sleeping(),
                "paused", dispatch.isPaused());
    }

    /**
     * Puts this handle's running jobs back in the queue and frees its participant record. The
     * mapping stays valid until the handle is unreachable; a submit or receive on it afterwards is
     * an {@link IllegalStateException} (it would take a record no close frees), and a complete of a
     * job it held answers false (the job was re-queued). An operation of this handle still in
     * flight on another thread (a submit between its two CASes, a complete writing its result) ends
     * first: the last of them re-queues and frees on close's behalf, so no slot is left naming a
     * free record (see {@link ParticipantRecord}); close itself never waits.
     */
    @Override
    public synchronized void close() {
        boolean wasOpen = !isClosed();
        super.close(); // first: an operation refused from here on is refused as closed
        if (wasOpen) {
            workers.close(); // its sleepers return
            participant.leave(
                    (record, generation, dead) -> {
                        sweeper.sweep(record, generation, dead, new ArrayList<>(), new int[1]);
                    });
        }
    }

    /** Starts an operation of this handle, or refuses it once the handle is closed. */
    private void enter() {
        passFileCheck();
        if (!participant.enter()) {
            requireOpen();
            throw new IllegalStateException(file.path() + " is closing: open a new handle");
        }
    }
}
