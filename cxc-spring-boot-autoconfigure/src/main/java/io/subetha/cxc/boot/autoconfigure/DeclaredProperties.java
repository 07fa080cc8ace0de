package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.values.SharedNaNTaggedValue;
import io.subetha.cxc.values.SharedNaNValue;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The settings of each primitive kind declared by name, {@code cxc.<plural>.<name>.*}: one class a
 * kind, held by {@link CxcProperties}' maps and mapped to its core settings record by {@link
 * CxcSettings}. A setting a core record holds takes that record's default, and its limits are
 * checked only there.
 */
public final class DeclaredProperties {

    private DeclaredProperties() {}

    /** A progress task declared by name. */
    public static class ProgressTask {

        /** Units of work the task has. Fixed when the file is created. */
        private long total = io.subetha.cxc.fanout.ProgressTask.TYPE.defaults().total();

        public long getTotal() {
            return total;
        }

        public void setTotal(long total) {
            this.total = total;
        }
    }

    /**
     * The worker pool of a declared primitive whose handler bean the starter runs (a scheduler's
     * JobHandler, a fan-out's FanoutHandler).
     */
    public abstract static class WorkerPool {

        /** Threads in this process that run the handler bean naming it (0 runs none here). */
        private int workers = 2;

        /** The longest running handlers get to finish when the application stops. */
        private Duration shutdownTimeout = Duration.ofSeconds(10);

        public int getWorkers() {
            return workers;
        }

        public void setWorkers(int workers) {
            this.workers = workers;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }
    }

    /** A background scheduler declared by name. */
    public static class Scheduler extends WorkerPool {

        /**
         * Jobs the file holds, queued, running or with a result not yet collected. Fixed when the
         * file is created.
         */
        private int capacity = BackgroundScheduler.TYPE.defaults().capacity();

        /**
         * How long a worker process may stay silent before its running jobs go back to the queue.
         * Fixed when the file is created.
         */
        private Duration grace = BackgroundScheduler.TYPE.defaults().grace();

        /**
         * Recurring and delayed jobs the file's timetable holds (1..4096): a schedule or a delayed
         * submit beyond it is refused. Fixed when the file is created.
         */
        private int timetableEntries = BackgroundScheduler.TYPE.defaults().timetableEntries();

        /**
         * How a job whose handler throws is tried again: the policy of the jobs this process
         * submits (each job carries its own, so peers need not agree; a submit with JobOptions may
         * give another).
         */
        @NestedConfigurationProperty private final RetryProperties retry = new RetryProperties();

        /**
         * Runs the history keeps: the last outcomes of every process's workers (job id, type,
         * attempt, started, took, outcome) in {directory}/{name}.history, shown in
         * /actuator/cxcjobs; 0 keeps none. Fixed when the history file is created.
         */
        private int history = 100;

        /**
         * Whether each job carries its submitting thread's trace context (W3C traceparent, 64 bytes
         * more per job slot), so the worker's Observation of its run is the submit's child, in any
         * process. Every process sharing the file must agree: it is part of the job layout.
         */
        private boolean traceContext;

        /**
         * Recurring jobs by name: each is submitted once per due time across every copy of the
         * application, by whichever copy polls first, and is kept in the scheduler's file (it
         * survives every copy's restart). Every copy registers them at start: the same entry, not
         * doubled. Settings per job (Recurring): cron (with zone), fixed-rate or fixed-delay,
         * payload, and keep-result.
         */
        private Map<String, Recurring> recurring = new LinkedHashMap<>();

        /**
         * Concurrency limits by job type (the JobHandler's type(job)): at most this many jobs of
         * the type run at once across every process, each holding a lease of
         * {directory}/{name}.limits while it runs; a worker that gets none hands the job back to
         * the queue, spending no attempt. 1 or more each, adding up to at most the leases the
         * limits file is created with: as many as the limits then, at least 256, at most 65536.
         */
        private Map<String, Integer> limits = new LinkedHashMap<>();

        public int getCapacity() {
            return capacity;
        }

        public void setCapacity(int capacity) {
            this.capacity = capacity;
        }

        public Duration getGrace() {
            return grace;
        }

        public void setGrace(Duration grace) {
            this.grace = grace;
        }

        public int getTimetableEntries() {
            return timetableEntries;
        }

        public void setTimetableEntries(int timetableEntries) {
            this.timetableEntries = timetableEntries;
        }

        public RetryProperties getRetry() {
            return retry;
        }

        public boolean isTraceContext() {
            return traceContext;
        }

        public void setTraceContext(boolean traceContext) {
            this.traceContext = traceContext;
        }

        public int getHistory() {
            return history;
        }

        public void setHistory(int history) {
            this.history = history;
        }

        public Map<String, Recurring> getRecurring() {
            return recurring;
        }

        public void setRecurring(Map<String, Recurring> recurring) {
            this.recurring = recurring;
        }

        public Map<String, Integer> getLimits() {
            return limits;
        }

        public void setLimits(Map<String, Integer> limits) {
            this.limits = limits;
        }

        /** A recurring job of a scheduler: one of cron, fixed-rate and fixed-delay, and payload. */
        public static class Recurring {

            /**
             * A Spring cron expression, six fields as for Scheduled(cron): second, minute, hour,
             * day of month, month, day of week; e.g. 0 0 2 * * * for 2 am every day.
             */
            private @Nullable String cron;

            /**
             * The zone the cron expression is read in: every copy fires at the same instants
             * whatever its own zone. Defaults to the zone of the copy that registers it.
             */
            private String zone = ZoneId.systemDefault().getId();

            /** Due every fixed-rate, the first one fixed-rate after the job is first registered. */
            private @Nullable Duration fixedRate;

            /** Due fixed-delay after each fire (counted from the fire, not the job's end). */
            private @Nullable Duration fixedDelay;

            /**
             * The job each fire submits, converted to the job type of the scheduler's JobHandler
             * (or SchedulerCodecs) bean, e.g. a number for Long jobs.
             */
            private @Nullable String payload;

            /**
             * Whether each fire's result is kept until a collector takes it. By default it is
             * discarded as the job completes (its run is in the history), so a recurring job nobody
             * collects from never fills the scheduler.
             */
            private boolean keepResult;

            public @Nullable String getCron() {
                return cron;
            }

            public void setCron(@Nullable String cron) {
                this.cron = cron;
            }

            public String getZone() {
                return zone;
            }

            public void setZone(String zone) {
                this.zone = zone;
            }

            public @Nullable Duration getFixedRate() {
                return fixedRate;
            }

            public void setFixedRate(@Nullable Duration fixedRate) {
                this.fixedRate = fixedRate;
            }

            public @Nullable Duration getFixedDelay() {
                return fixedDelay;
            }

            public void setFixedDelay(@Nullable Duration fixedDelay) {
                this.fixedDelay = fixedDelay;
            }

            public @Nullable String getPayload() {
                return payload;
            }

            public void setPayload(@Nullable String payload) {
                this.payload = payload;
            }

            public boolean isKeepResult() {
                return keepResult;
            }

            public void setKeepResult(boolean keepResult) {
                this.keepResult = keepResult;
            }
        }
    }

    /** A priority fan-out declared by name: 8 levels, 0..7, the highest taken first. */
    public static class Fanout extends WorkerPool {

        /** Items each priority level holds. Fixed when the file is created. */
        private int capacity = PriorityFanout.TYPE.defaults().capacityPerPriority();

        /**
         * How long a handling process may stay silent before its claimed items return to their
         * level. Fixed when the file is created.
         */
        private Duration grace = PriorityFanout.DEFAULT_GRACE;

        /** What happens to an item whose handler throws. */
        private FanoutRetryPolicy retry = new FanoutRetryPolicy();

        public int getCapacity() {
            return capacity;
        }

        public void setCapacity(int capacity) {
            this.capacity = capacity;
        }

        public Duration getGrace() {
            return grace;
        }

        public void setGrace(Duration grace) {
            this.grace = grace;
        }

        public FanoutRetryPolicy getRetry() {
            return retry;
        }

        public void setRetry(FanoutRetryPolicy retry) {
            this.retry = retry;
        }
    }

    /**
     * A declared fan-out's retry policy: an item whose handler throws is held for the back-off
     * (doubled for each later attempt), then returned to its level; its last attempt, counted
     * across every process, dead-letters it (FanoutHandler.onDeadLetter, then acknowledged).
     */
    public static class FanoutRetryPolicy {

        /**
         * Attempts of one item in all, by every process sharing the fan-out (counted in its file,
         * an attempt whose process died included); the last failing one dead-letters it.
         */
        private int maxAttempts = 3;

        /** How long a failed item is held before it is returned, doubled for each later attempt. */
        private Duration backoff = Duration.ofSeconds(1);

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getBackoff() {
            return backoff;
        }

        public void setBackoff(Duration backoff) {
            this.backoff = backoff;
        }
    }

    /** An event log declared by name. */
    public static class EventLog {

        /**
         * Events the log retains for its listeners, and the most that may be pending (published,
         * not yet folded) at once: a listener that falls further behind skips to the oldest one
         * retained. Fixed when the file is created.
         */
        private int capacity = EventStateLog.TYPE.defaults().capacity();

        public int getCapacity() {
            return capacity;
        }

        public void setCapacity(int capacity) {
            this.capacity = capacity;
        }
    }

    /** A shared region declared by name. */
    public static class Region {

        /**
         * The heap's length in bytes, rounded up to a multiple of 64. Fixed when the file is
         * created.
         */
        private long capacityBytes = SharedRegion.TYPE.defaults().capacityBytes();

        /**
         * How long this application's handle waits for the allocator lock held by a live process
         * before failing. The handle's own, not recorded in the file.
         */
        private Duration lockTimeout = SharedRegion.TYPE.defaults().lockTimeout();

        /**
         * Whether this application's handle caches small freed blocks (a free and an allocation of
         * one without the lock); off, every free takes the lock. The handle's own.
         */
        private boolean freeCache = SharedRegion.TYPE.defaults().freeCache();

        public long getCapacityBytes() {
            return capacityBytes;
        }

        public void setCapacityBytes(long capacityBytes) {
            this.capacityBytes = capacityBytes;
        }

        public Duration getLockTimeout() {
            return lockTimeout;
        }

        public void setLockTimeout(Duration lockTimeout) {
            this.lockTimeout = lockTimeout;
        }

        public boolean isFreeCache() {
            return freeCache;
        }

        public void setFreeCache(boolean freeCache) {
            this.freeCache = freeCache;
        }
    }

    /** NaN-boxed value cells declared by name. */
    public static class NaNValues {

        /** The number of cells. Fixed when the file is created. */
        private int cells = SharedNaNValue.TYPE.defaults().cells();

        public int getCells() {
            return cells;
        }

        public void setCells(int cells) {
            this.cells = cells;
        }
    }

    /** NaN-boxed cells of user-tagged values declared by name. */
    public static class NaNTaggedValues {

        /** The number of cells. Fixed when the file is created. */
        private int cells = SharedNaNTaggedValue.TYPE.defaults().cells();

        /** The highest user tag the cells accept. Fixed when the file is created. */
        private int maxUserTag = SharedNaNTaggedValue.TYPE.defaults().maxUserTag();

        public int getCells() {
            return cells;
        }

        public void setCells(int cells) {
            this.cells = cells;
        }

        public int getMaxUserTag() {
            return maxUserTag;
        }

        public void setMaxUserTag(int maxUserTag) {
            this.maxUserTag = maxUserTag;
        }
    }

    /** An epoch barrier declared by name. */
    public static class Barrier {

        /** Participant slots of the barrier. Fixed when the file is created. */
        private int capacity = EpochBarrier.TYPE.defaults().capacity();

        /**
         * How often a waiting participant refreshes its heartbeat, and how often one in a long
         * phase must call beat(). Fixed when the file is created.
         */
        private Duration heartbeatInterval = EpochBarrier.TYPE.defaults().heartbeatInterval();

        /**
         * Heartbeat intervals (of heartbeat-interval, not ticks) a participant may stay silent
         * before the waiters drop it. Fixed when the file is created.
         */
        private int graceIntervals = EpochBarrier.TYPE.defaults().graceEpochs();

        public int getCapacity() {
            return capacity;
        }

        public void setCapacity(int capacity) {
            this.capacity = capacity;
        }

        public Duration getHeartbeatInterval() {
            return heartbeatInterval;
        }

        public void setHeartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
        }

        public int getGraceIntervals() {
            return graceIntervals;
        }

        public void setGraceIntervals(int graceIntervals) {
            this.graceIntervals = graceIntervals;
        }
    }

    /** A failover watchdog declared by name, over the participants' heartbeat table. */
    public static class Watchdog {

        /**
         * Epochs a participant's beat may lag before the ticker's scan moves its work to a live
         * participant.
         */
        private long graceEpochs = FailoverWatchdog.DEFAULT_GRACE_EPOCHS;

        /** Work ids one participant may be assigned. Fixed when the file is created. */
        private int workPerSlot = FailoverWatchdog.TYPE.defaults().workPerSlot();

        public long getGraceEpochs() {
            return graceEpochs;
        }

        public void setGraceEpochs(long graceEpochs) {
            this.graceEpochs = graceEpochs;
        }

        public int getWorkPerSlot() {
            return workPerSlot;
        }

        public void setWorkPerSlot(int workPerSlot) {
            this.workPerSlot = workPerSlot;
        }
    }

    /** A pass registry declared by name. */
    public static class PassRegistryDeclaration {

        /** Distinct pass ids the file holds over its life. Fixed when the file is created. */
        private int maxPasses = PassRegistry.TYPE.defaults().maxPasses();

        /** Calls to one pass in flight at once. Fixed when the file is created. */
        private int mailboxSlots = PassRegistry.TYPE.defaults().mailboxSlots();

        /** The largest argument or result in bytes. Fixed when the file is created. */
        private int maxPayloadBytes = PassRegistry.TYPE.defaults().maxPayloadBytes();

        public int getMaxPasses() {
            return maxPasses;
        }

        public void setMaxPasses(int maxPasses) {
            this.maxPasses = maxPasses;
        }

        public int getMailboxSlots() {
            return mailboxSlots;
        }

        public void setMailboxSlots(int mailboxSlots) {
            this.mailboxSlots = mailboxSlots;
        }

        public int getMaxPayloadBytes() {
            return maxPayloadBytes;
        }

        public void setMaxPayloadBytes(int maxPayloadBytes) {
            this.maxPayloadBytes = maxPayloadBytes;
        }
    }
}
