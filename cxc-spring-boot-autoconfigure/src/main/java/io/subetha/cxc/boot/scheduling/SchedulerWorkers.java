package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.boot.SchedulerCodecs;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor;
import io.subetha.cxc.scheduling.FailOutcome;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.ReclaimReport;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * The starter's side of the schedulers declared by {@code cxc.schedulers.<name>.*}: on every tick
 * it beats each worker pool's participant record and runs each scheduler's {@code watchdogScan} (so
 * a dead or silent worker's jobs go back to the queue within a tick of its grace, even when no
 * worker here is receiving); as a lifecycle bean it runs, per scheduler with a {@link JobHandler}
 * bean, a pool of {@code workers} threads: receive → handle → complete, or, when the handler
 * throws, {@code fail} by the job's retry policy (queued again after its backoff, or FAILED). Each
 * run's outcome is told to the {@link JobRunObserver}s (history, meters, observations). An idle
 * thread sleeps in its receive on the scheduler's doorbell, which a submit in any process rings.
 *
 * <p><b>Shutdown</b>: the pools stop receiving, running jobs get {@code shutdown-timeout} to finish
 * and record their result; threads still running then are interrupted, and the scheduler bean's
 * close (right after, as the context closes) puts their jobs back in the queue and frees this
 * process's participant record, so another instance receives them at once; a late result from an
 * interrupted job is fenced off by its attempt.
 */
public final class SchedulerWorkers implements TickTask, SmartLifecycle, DisposableBean {

    private static final Log logger = LogFactory.getLog(SchedulerWorkers.class);
    private static final long PID = ProcessHandle.current().pid();

    /**
     * How long an idle worker sleeps in one receive on the scheduler's doorbell: it wakes at once
     * for a job (a submit in any process rings it), for a stop, and for the clock's work (a retry
     * or timetable entry due, its scan); past it, it only loops to look at its pool again.
     */
    private static final Duration IDLE_WAIT = Duration.ofSeconds(1);

    /**
     * The longest a job handed back at its type's limit waits in the queue: it is due again as soon
     * as a run of a limited type ends in any process ({@code limitReleased}); this bounds the wait
     * when a lease is freed otherwise (its holder died, or was silent past the grace).
     */
    static final Duration HAND_BACK_WAIT = Duration.ofSeconds(1);

    private static final long DAMAGED_PARK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<String, BackgroundScheduler<?, ?>> schedulers;
    private final List<Pool<?, ?>> pools = new ArrayList<>();
    private final List<JobRunObserver> observers = new CopyOnWriteArrayList<>();
    private final Map<String, SchedulerHistory> histories = new ConcurrentHashMap<>();
    private final Map<String, JobLimits> limits = new ConcurrentHashMap<>();
    private final Map<String, CxcFormatException> damages = new ConcurrentHashMap<>();
    private volatile boolean running;
    private volatile boolean stopping;

    /**
     * @param schedulers the declared schedulers, by bean name
     * @param poolSettings each one's worker pool in this process, by bean name
     * @param codecs every {@link SchedulerCodecs} bean (handlers among them)
     */
    public SchedulerWorkers(
            Map<String, BackgroundScheduler<?, ?>> schedulers,
            Map<String, WorkerPoolSettings> poolSettings,
            List<SchedulerCodecs<?, ?>> codecs) {
        this.schedulers = new LinkedHashMap<>(schedulers);
        schedulers.forEach(
                (name, scheduler) -> {
                    int workers = poolSettings.get(name).workers();
                    Duration timeout = poolSettings.get(name).shutdownTimeout();
                    SchedulerCodecs<?, ?> given = codecsFor(name, codecs);
                    if (given instanceof JobHandler<?, ?> handler && workers > 0) {
                        pools.add(
                                pool(
                                        name, scheduler, handler, workers, timeout, observers,
                                        damages));
                    } else if (workers > 0) {
                        logger.info(
                                "cxc scheduler "
                                        + name
                                        + ": no JobHandler bean names it, so this process runs"
                                        + " none of its jobs (it may submit and collect)");
                    }
                });
    }

    @SuppressWarnings("unchecked")
    private static <J, R> Pool<J, R> pool(
            String name,
            BackgroundScheduler<?, ?> scheduler,
            JobHandler<?, ?> handler,
            int workers,
            Duration timeout,
            List<JobRunObserver> observers,
            Map<String, CxcFormatException> damages) {
        return new Pool<>(
                name,
                (BackgroundScheduler<J, R>) scheduler,
                (JobHandler<J, R>) handler,
                workers,
                timeout,
                observers,
                damages);
    }

    /** Adds {@code observer} to every pool's runs from now on. */
    public void observe(JobRunObserver observer) {
        observers.add(observer);
    }

    /** Keeps {@code history} for its scheduler: this process's runs are recorded in it. */
    public void keepHistory(String scheduler, SchedulerHistory history) {
        SchedulerHistory before = histories.put(scheduler, history);
        if (before != null) {
            observers.remove(before);
            before.close();
        }
        observe(history);
    }

    /**
     * Runs at most the declared number of {@code scheduler}'s jobs of each type of {@code limits}
     * at once, across every process: set before {@link #start}.
     */
    public void limit(String scheduler, JobLimits limits) {
        JobLimits before = this.limits.put(scheduler, limits);
        if (before != null) {
            before.close();
        }
        for (Pool<?, ?> pool : pools) {
            if (pool.name.equals(scheduler)) {
                pool.limits = limits;
            }
        }
    }

    /** The limits of {@code scheduler}'s job types, if it declares any. */
    public Optional<JobLimits> limits(String scheduler) {
        return Optional.ofNullable(limits.get(scheduler));
    }

    /** The history of {@code scheduler}, if it keeps one. */
    public Optional<SchedulerHistory> history(String scheduler) {
        return Optional.ofNullable(histories.get(scheduler));
    }

    /**
     * Closes the histories and limits; the schedulers are their own beans, closed by the context.
     */
    @Override
    public void destroy() {
        histories.values().forEach(SchedulerHistory::close);
        limits.values().forEach(JobLimits::close);
    }

    /** The damage a scan or a worker last found in {@code scheduler}'s file, if any. */
    public Optional<CxcFormatException> damage(String scheduler) {
        return Optional.ofNullable(damages.get(scheduler));
    }

    private void damaged(String scheduler, CxcFormatException e) {
        if (damages.put(scheduler, e) == null) {
            logger.error("cxc scheduler " + scheduler + ": its file is damaged", e);
        }
    }

    /** The declared schedulers, by name. */
    public Map<String, BackgroundScheduler<?, ?>> schedulers() {
        return Map.copyOf(schedulers);
    }

    /**
     * Whether {@code scheduler} has a pool in this process whose threads have stopped (all of them
     * ended while it should receive, or it was stopped): false when it has no pool here.
     */
    public boolean poolStopped(String scheduler) {
        for (Pool<?, ?> pool : pools) {
            if (pool.name.equals(scheduler)) {
                return !pool.receiving || pool.threads.allEnded();
            }
        }
        return false;
    }

    /** Whether {@code scheduler} has a pool in this process. */
    public boolean hasPool(String scheduler) {
        return pools.stream().anyMatch(pool -> pool.name.equals(scheduler));
    }

    private static final CodecBeans<SchedulerCodecs<?, ?>> CODECS =
            new CodecBeans<>(
                    "scheduler",
                    "cxc.schedulers",
                    "JobHandler",
                    "SchedulerCodecs",
                    "the job and result codecs",
                    "run its jobs here",
                    "only submit and collect, a bean SchedulerCodecs.of(\"%s\", jobCodec,"
                            + " resultCodec)",
                    SchedulerCodecs::scheduler);

    /** The one codecs bean naming {@code scheduler}; throws naming the property otherwise. */
    static SchedulerCodecs<?, ?> codecsFor(String scheduler, List<SchedulerCodecs<?, ?>> all) {
        return CODECS.theOneNaming(scheduler, all);
    }

    /** Opens a declared scheduler's file with the codecs its handler (or codecs bean) gives. */
    public static BackgroundScheduler<?, ?> open(
            Path file,
            BackgroundScheduler.Settings<?, ?> declared,
            CxcFileOptions options,
            List<SchedulerCodecs<?, ?>> codecs) {
        return open(file, declared, options, codecs, null);
    }

    /**
     * {@link #open}, its jobs carrying the submitting thread's trace context ({@link
     * TraceCarryingCodec}) unless {@code traceContext} is null.
     */
    public static BackgroundScheduler<?, ?> open(
            Path file,
            BackgroundScheduler.Settings<?, ?> declared,
            CxcFileOptions options,
            List<SchedulerCodecs<?, ?>> codecs,
            @Nullable Supplier<@Nullable String> traceContext) {
        String name = nameOf(file);
        return open(name, file, declared, options, codecsFor(name, codecs), traceContext);
    }

    /** The declared name of a scheduler's file: {@code jobs} for {@code jobs.scheduler}. */
    public static String nameOf(Path file) {
        String fileName = file.getFileName().toString();
        return fileName.substring(0, fileName.length() - SUFFIX.length());
    }

    public static final String SUFFIX = ".scheduler";

    private static <J, R> BackgroundScheduler<J, R> open(
            String name,
            Path file,
            BackgroundScheduler.Settings<?, ?> declared,
            CxcFileOptions options,
            SchedulerCodecs<J, R> codecs,
            @Nullable Supplier<@Nullable String> traceContext) {
        BackgroundScheduler.Settings<J, R> settings;
        try {
            settings =
                    new BackgroundScheduler.Settings<>(
                            declared.capacity(),
                            traceContext == null
                                    ? codecs.jobCodec()
                                    : new TraceCarryingCodec<>(codecs.jobCodec(), traceContext),
                            codecs.resultCodec(),
                            declared.grace(),
                            declared.retry(),
                            declared.fireAndForget(),
                            declared.timetableEntries());
        } catch (CxcSettingsException e) {
            throw new InvalidCxcPropertyException(
                    "cxc.schedulers." + name,
                    name,
                    "the " + e.setting() + " of bean " + codecs + " is refused: " + e.getMessage(),
                    "Give codecs of at most "
                            + BackgroundSchedulerDescriptor.MAX_PAYLOAD
                            + " bytes.");
        }
        return BackgroundScheduler.TYPE.openOrCreate(file, settings, options);
    }

    @Override
    public void onTick() {
        for (Pool<?, ?> pool : pools) {
            if (pool.receiving && !pool.scheduler.isClosed()) {
                pool.scheduler.heartbeat(); // long jobs: this process is alive while it ticks
            }
        }
        limits.forEach(
                (name, limits) -> {
                    for (String lost : limits.extendHeld()) {
                        logger.warn(
                                "cxc scheduler "
                                        + name
                                        + ": the lease "
                                        + lost
                                        + " of a running job was lost (this process was silent"
                                        + " past the grace): another job of its type may run");
                    }
                });
        schedulers.forEach(
                (name, scheduler) -> {
                    if (scheduler.isClosed()) {
                        return;
                    }
                    ReclaimReport report;
                    try {
                        report = scheduler.watchdogScan();
                    } catch (CxcFormatException e) {
                        damaged(name, e);
                        return;
                    }
                    if (!report.isEmpty()) {
                        logger.info("cxc scheduler " + name + " reclaimed: " + report);
                    }
                });
    }

    @Override
    public synchronized void start() {
        pools.forEach(Pool::start);
        running = true;
    }

    @Override
    public synchronized void stop() {
        stopping = true;
        pools.forEach(Pool::stopReceiving);
        pools.forEach(Pool::awaitStopped);
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Whether {@link #stop} has begun: the pools receive no more. */
    public boolean isStopping() {
        return stopping;
    }

    /** The pools' counts, by scheduler name (tests, logs). */
    public Map<String, Map<String, Long>> counts() {
        Map<String, Map<String, Long>> counts = new LinkedHashMap<>();
        for (Pool<?, ?> pool : pools) {
            counts.put(
                    pool.name,
                    Map.of(
                            "workers", (long) pool.threads.size(),
                            "completed", pool.completed.get(),
                            "failed", pool.failed.get(),
                            "retried", pool.retried.get(),
                            "fenced", pool.fenced.get(),
                            "held", pool.held.get()));
        }
        return counts;
    }

    @Override
    public String toString() {
        return "SchedulerWorkers" + schedulers.keySet();
    }

    /** One scheduler's worker threads in this process. */
    private static final class Pool<J, R> {
        final String name;
        final BackgroundScheduler<J, R> scheduler;
        final JobHandler<J, R> handler;
        final int workers;
        final Duration timeout;
        final WorkerThreads threads;
        final List<JobRunObserver> observers;
        final Map<String, CxcFormatException> damages;
        final AtomicLong completed = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong retried = new AtomicLong();
        final AtomicLong fenced = new AtomicLong();
        final AtomicLong held = new AtomicLong();
        volatile @Nullable JobLimits limits;
        volatile boolean receiving;

        Pool(
                String name,
                BackgroundScheduler<J, R> scheduler,
                JobHandler<J, R> handler,
                int workers,
                Duration timeout,
                List<JobRunObserver> observers,
                Map<String, CxcFormatException> damages) {
            this.name = name;
            this.scheduler = scheduler;
            this.handler = handler;
            this.workers = workers;
            this.timeout = timeout;
            this.threads = new WorkerThreads("cxc-scheduler-" + name + "-");
            this.observers = observers;
            this.damages = damages;
        }

        void start() {
            if (receiving) {
                return;
            }
            receiving = true;
            threads.start(workers, this::work);
        }

        /** No more receives: the workers asleep on the doorbell are woken to see it. */
        void stopReceiving() {
            receiving = false;
            if (!scheduler.isClosed()) {
                scheduler.wakeWorkers();
            }
        }

        private void work() {
            while (receiving) {
                Optional<Job<J>> job;
                try {
                    job = scheduler.receive(PID, IDLE_WAIT, () -> !receiving);
                } catch (RuntimeException e) {
                    if (scheduler.isClosed()) {
                        return;
                    }
                    if (e instanceof CxcFormatException damage) {
                        // Said once (and shown by the health), then looked at again each second.
                        if (damages.put(name, damage) == null) {
                            logger.error("cxc scheduler " + name + ": its file is damaged", e);
                        }
                        LockSupport.parkNanos(DAMAGED_PARK_NANOS);
                        continue;
                    }
                    logger.error("cxc scheduler " + name + ": receive failed", e);
                    LockSupport.parkNanos(DAMAGED_PARK_NANOS); // not a log line in a spin
                    continue;
                }
                if (!damages.isEmpty()) {
                    damages.remove(name); // read again without damage
                }
                if (job.isPresent()) {
                    runWithin(job.get()); // else its wait timed out, or the pool stops
                }
            }
        }

        /**
         * Runs {@code job} holding one of its type's leases when its type is limited; with none
         * free, hands it back to the queue unrun (no attempt spent), to be received again, by any
         * process, once a limited run ends or {@link #HAND_BACK_WAIT} has passed.
         */
        private void runWithin(Job<J> job) {
            JobLimits limits = this.limits;
            String type = limits == null ? null : typeOf(job);
            if (type == null || !limits.limits(type)) {
                run(job);
                return;
            }
            Optional<OwnerLease.Lease> lease = limits.tryEnter(type);
            if (lease.isEmpty()) {
                handBack(job);
                return;
            }
            try {
                run(job);
            } finally {
                limits.leave(lease.get());
                scheduler.limitReleased(); // the jobs handed back at a limit, in any process, look
            }
        }

        private @Nullable String typeOf(Job<J> job) {
            try {
                return handler.type(job);
            } catch (RuntimeException e) {
                logger.error("cxc scheduler " + name + ": the handler's type() threw", e);
                return null; // run unlimited: a job whose type is unknown is not stuck
            }
        }

        private void handBack(Job<J> job) {
            FailOutcome outcome;
            try {
                outcome = scheduler.handBack(job, HAND_BACK_WAIT);
            } catch (RuntimeException e) {
                hold(job, "its type's limit is reached, and it could not be handed back", e);
                return;
            }
            if (outcome == FailOutcome.RETRYING) {
                ended(job, Instant.now(), System.nanoTime(), JobRun.Outcome.HANDED_BACK);
            } else if (outcome == FailOutcome.REFUSED) {
                fenced.incrementAndGet();
            } else if (outcome == FailOutcome.FAILED) {
                failed.incrementAndGet();
                logger.warn(
                        "cxc scheduler " + name + ": " + job + " FAILED, handed back 2^19 times");
            }
        }

        private void run(Job<J> job) {
            Instant started = Instant.now();
            long from = System.nanoTime();
            @Nullable R result;
            try {
                result = observed(job, 0);
            } catch (Exception e) {
                if (!receiving
                        && (e instanceof InterruptedException
                                || Thread.currentThread().isInterrupted())) {
                    // Interrupted by shutdown: not a failure; the job goes back to the queue.
                    logger.info(
                            "cxc scheduler "
                                    + name
                                    + ": "
                                    + job
                                    + " interrupted by shutdown; it goes back to the queue as the"
                                    + " scheduler closes");
                    return;
                }
                ended(job, started, from, failed(job, e));
                return;
            }
            try {
                if (result == null) {
                    throw new IllegalArgumentException("the handler returned null");
                }
                if (scheduler.complete(job, result)) {
                    completed.incrementAndGet();
                    ended(job, started, from, JobRun.Outcome.SUCCEEDED);
                } else {
                    // This attempt was re-dispatched meanwhile: its result is not recorded.
                    fenced.incrementAndGet();
                }
            } catch (RuntimeException e) {
                hold(job, "its result could not be recorded", e);
            }
        }

        /** The handler's call inside every observer's {@code around}, the first outermost. */
        private @Nullable R observed(Job<J> job, int from) throws Exception {
            if (from == observers.size()) {
                return handler.handle(job);
            }
            return observers.get(from).around(name, job, () -> observed(job, from + 1));
        }

        private void ended(
                Job<J> job, Instant started, long from, JobRun.@Nullable Outcome outcome) {
            if (outcome == null || observers.isEmpty()) {
                return;
            }
            JobRun run;
            try {
                run =
                        new JobRun(
                                name,
                                job.id(),
                                handler.type(job),
                                job.attempt(),
                                started,
                                Duration.ofNanos(System.nanoTime() - from),
                                outcome);
            } catch (RuntimeException e) {
                logger.error("cxc scheduler " + name + ": the handler's type() threw", e);
                return;
            }
            for (JobRunObserver observer : observers) {
                try {
                    observer.ended(run);
                } catch (RuntimeException e) {
                    logger.error("cxc scheduler " + name + ": " + observer + " threw", e);
                }
            }
        }

        /** Records a failed attempt: queued again after its backoff, or FAILED once spent. */
        private JobRun.@Nullable Outcome failed(Job<J> job, Exception e) {
            FailOutcome outcome;
            try {
                outcome = scheduler.fail(job, e);
            } catch (RuntimeException again) {
                again.addSuppressed(e);
                hold(job, "its handler threw, and the failure could not be recorded", again);
                return null;
            }
            switch (outcome) {
                case RETRYING -> {
                    retried.incrementAndGet();
                    return JobRun.Outcome.RETRIED;
                }
                case FAILED -> {
                    failed.incrementAndGet();
                    warn(job + " FAILED, its attempts spent", e);
                    try {
                        handler.onFailed(job, e);
                    } catch (RuntimeException listener) {
                        logger.error("cxc scheduler " + name + ": onFailed threw", listener);
                    }
                    return JobRun.Outcome.FAILED;
                }
                default -> {
                    fenced.incrementAndGet();
                    return null;
                }
            }
        }

        /** The failure is the handler's: one whose message throws still leaves a log line. */
        private void warn(String what, Exception e) {
            try {
                logger.warn("cxc scheduler " + name + ": " + what, e);
            } catch (RuntimeException unloggable) {
                logger.warn("cxc scheduler " + name + ": " + what + " (" + e.getClass() + ")");
            }
        }

        private void hold(Job<J> job, String why, RuntimeException e) {
            held.incrementAndGet();
            logger.error(
                    "cxc scheduler "
                            + name
                            + ": "
                            + job
                            + " is held by this process until it stops: "
                            + why,
                    e);
        }

        void awaitStopped() {
            threads.awaitStopped(
                    timeout,
                    logger,
                    "cxc scheduler " + name,
                    "still runs a job after "
                            + timeout
                            + " (shutdown-timeout): interrupted; its job goes back to the"
                            + " queue as the scheduler closes");
        }
    }
}
