package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.election.Preemption;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.values.SharedNaNTaggedValue;
import io.subetha.cxc.values.SharedNaNValue;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Configuration of cxc: where the files live, how the leader election runs, the participants'
 * heartbeat table, and the primitives declared by name, each kind one typed class here. The one
 * source of every setting: its name, type and description (the IDE's metadata is generated from
 * this javadoc); a setting a core settings record holds takes that record's default, and its limits
 * are checked only there ({@link CxcSettings} maps each section to its record).
 */
@ConfigurationProperties("cxc")
public class CxcProperties {

    /** Whether to set up cxc at all. */
    private boolean enabled = true;

    /**
     * Directory of the cxc files, shared by every process that coordinates through them. Default:
     * /dev/shm/cxc-{uid}/{spring.application.name, or "application"} where /dev/shm exists, else
     * the same under java.io.tmpdir.
     */
    private @Nullable Path directory;

    /** Permissions of the files cxc creates, as ls -l shows them. */
    private String filePermissions = "rw-------";

    /**
     * Whether to refuse a directory (or file) that another user owns or that group or others may
     * write, a parent directory owned by someone other than you or root or that group or others may
     * write unless it is sticky (as /tmp), and any symbolic link on the directory's path owned by
     * someone other than you or root: whoever can write there can hijack leadership. Turn off only
     * knowingly.
     */
    private boolean strictPermissions = true;

    private final Leader leader = new Leader();

    private final Heartbeat heartbeat = new Heartbeat();

    /**
     * Epoch barriers by name: each is a bean of that name (inject it with @Qualifier) over the file
     * {directory}/{name}.barrier. Settings per name (Barrier): capacity, heartbeat-interval,
     * grace-intervals.
     */
    private final Map<String, Barrier> barriers = new LinkedHashMap<>();

    /**
     * Failover watchdogs by name over the participants' heartbeat table: each is a bean of that
     * name over the file {directory}/{name}.watchdog, scanned by the ticker every tick. Settings
     * per name (Watchdog): grace-epochs, work-per-slot.
     */
    private final Map<String, Watchdog> watchdogs = new LinkedHashMap<>();

    /**
     * Pass registries by name: each is a bean of that name over the file {directory}/{name}.passes;
     * PassHandler beans annotated with @PassId are registered in it on startup and unregistered on
     * shutdown. Settings per name (PassRegistryDeclaration): max-passes, mailbox-slots,
     * max-payload-bytes.
     */
    private final Map<String, PassRegistryDeclaration> passRegistries = new LinkedHashMap<>();

    /**
     * Progress tasks by name: each is a bean of that name (inject it with @Qualifier) over the file
     * {directory}/{name}.progress, shown in /actuator/cxc with its percent and as the gauge
     * cxc.progress{task}. Settings per name (ProgressTask): total.
     */
    private final Map<String, ProgressTask> progressTasks = new LinkedHashMap<>();

    /**
     * Background schedulers by name: each is a bean of that name over the file
     * {directory}/{name}.scheduler, its job and result codecs given by the JobHandler (or
     * SchedulerCodecs) bean naming it; the JobHandler runs its jobs on the starter's worker pool,
     * and every tick scans for dead or silent workers; a job whose handler throws is retried by its
     * retry policy, then FAILED. Settings per name (Scheduler): capacity, grace, workers,
     * shutdown-timeout, retry (retry.max-attempts, retry.initial-backoff, retry.multiplier,
     * retry.max-backoff), history, trace-context, and recurring jobs by name (recurring).
     */
    private final Map<String, Scheduler> schedulers = new LinkedHashMap<>();

    /**
     * Priority fan-outs by name: each is a bean of that name over the file
     * {directory}/{name}.fanout, its item codec given by the FanoutHandler (or FanoutCodec) bean
     * naming it; the FanoutHandler handles its items on the starter's worker pool (claim, handle,
     * acknowledge), highest priority first. Settings per name (Fanout): capacity, grace, workers,
     * shutdown-timeout, retry (max-attempts, backoff).
     */
    private final Map<String, Fanout> fanouts = new LinkedHashMap<>();

    /**
     * Event logs by name: each is a bean of that name (an EventStateLog) over the file
     * {directory}/{name}.events, its event and state codecs and its fold given by the
     * EventLogCodecs bean naming it (without one, long events folded into their count); the leader
     * folds it every tick, CxcEventPublisher publishes to it, and every @CxcEventListener method
     * naming it runs for each event, its position saved in {directory}/{name}.readers. Settings per
     * name (EventLog): capacity.
     */
    private final Map<String, EventLog> eventLogs = new LinkedHashMap<>();

    private final Listeners listeners = new Listeners();

    /**
     * Shared regions (crash-safe sub-allocators) by name: each is a bean of that name over the file
     * {directory}/{name}.region. Settings per name (Region): capacity-bytes, lock-timeout,
     * free-cache.
     */
    private final Map<String, Region> regions = new LinkedHashMap<>();

    /**
     * NaN-boxed value cells by name: each is a bean over the file {directory}/{name}.nan. Settings
     * per name (NaNValues): cells.
     */
    private final Map<String, NaNValues> nanValues = new LinkedHashMap<>();

    /**
     * NaN-boxed cells of user-tagged values by name: each is a bean over the file
     * {directory}/{name}.nantagged. Settings per name (NaNTaggedValues): cells, max-user-tag.
     */
    private final Map<String, NaNTaggedValues> nanTaggedValues = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable Path getDirectory() {
        return directory;
    }

    public void setDirectory(@Nullable Path directory) {
        this.directory = directory;
    }

    public String getFilePermissions() {
        return filePermissions;
    }

    public void setFilePermissions(String filePermissions) {
        this.filePermissions = filePermissions;
    }

    public boolean isStrictPermissions() {
        return strictPermissions;
    }

    public void setStrictPermissions(boolean strictPermissions) {
        this.strictPermissions = strictPermissions;
    }

    public Leader getLeader() {
        return leader;
    }

    public Heartbeat getHeartbeat() {
        return heartbeat;
    }

    public Map<String, Barrier> getBarriers() {
        return barriers;
    }

    public Map<String, Watchdog> getWatchdogs() {
        return watchdogs;
    }

    public Map<String, PassRegistryDeclaration> getPassRegistries() {
        return passRegistries;
    }

    public Map<String, ProgressTask> getProgressTasks() {
        return progressTasks;
    }

    public Map<String, Scheduler> getSchedulers() {
        return schedulers;
    }

    public Map<String, Fanout> getFanouts() {
        return fanouts;
    }

    public Map<String, EventLog> getEventLogs() {
        return eventLogs;
    }

    public Listeners getListeners() {
        return listeners;
    }

    public Map<String, Region> getRegions() {
        return regions;
    }

    public Map<String, NaNValues> getNanValues() {
        return nanValues;
    }

    public Map<String, NaNTaggedValues> getNanTaggedValues() {
        return nanTaggedValues;
    }

    /** The shared leader election and this process's ticker. */
    public static class Leader {

        /** Whether this process takes part in the leader election. */
        private boolean enabled = true;

        /** Base name of the election file: {directory}/{name}.cxc. */
        private String name = "leader";

        /**
         * Epochs the leader's heartbeat may lag the global epoch before any participant may take
         * over: the failover time of a leader that hangs alive (a dead one is replaced within a
         * tick). Written into the election file when it is created: every participant runs at the
         * file's value, and a process configured differently logs a warning naming both.
         */
        private long graceEpochs = SharedLeaderElection.TYPE.defaults().graceEpochs();

        /**
         * How often this process ticks the election: advances the epoch if due, beats as leader,
         * claims, and checks whether the leader's process is alive. Crash failover takes about one
         * tick. Written into the election file when it is created: every participant (and its
         * heartbeat registration) runs at the file's value, and a process configured differently
         * logs a warning naming both.
         */
        private Duration tickInterval = SharedLeaderElection.TYPE.defaults().tickInterval();

        /**
         * Whether a healthy leader gives way to a lower PID: lowest-pid (the lowest live PID always
         * leads; a lower PID that starts or thaws later takes the seat at once, one more handover)
         * or none (stable leadership: a leader keeps its seat until it dies, steps down or stops
         * beating).
         */
        private Preemption preemption = Preemption.LOWEST_PID;

        public Preemption getPreemption() {
            return preemption;
        }

        public void setPreemption(Preemption preemption) {
            this.preemption = preemption;
        }

        /** Whether to step down on graceful shutdown, so a successor takes over within a tick. */
        private boolean stepDownOnShutdown = true;

        /**
         * Where leadership is decided: local (this host's election only) or zookeeper (host leaders
         * then elect one global leader through ZooKeeper; needs the cxc-zookeeper module and
         * cxc.zookeeper.connect-string). Unset: zookeeper when cxc.zookeeper.connect-string is set,
         * else local.
         */
        private @Nullable Backend backend;

        /** Where leadership is decided. */
        public enum Backend {
            /** This host's election only: the lowest live PID on the host leads. */
            LOCAL,
            /** Host leaders elect one global leader through ZooKeeper (module cxc-zookeeper). */
            ZOOKEEPER
        }

        public @Nullable Backend getBackend() {
            return backend;
        }

        public void setBackend(@Nullable Backend backend) {
            this.backend = backend;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public long getGraceEpochs() {
            return graceEpochs;
        }

        public void setGraceEpochs(long graceEpochs) {
            this.graceEpochs = graceEpochs;
        }

        public Duration getTickInterval() {
            return tickInterval;
        }

        public void setTickInterval(Duration tickInterval) {
            this.tickInterval = tickInterval;
        }

        public boolean isStepDownOnShutdown() {
            return stepDownOnShutdown;
        }

        public void setStepDownOnShutdown(boolean stepDownOnShutdown) {
            this.stepDownOnShutdown = stepDownOnShutdown;
        }

        /**
         * On graceful shutdown, how long running @LeaderOnly calls may take to finish before this
         * process steps down: meanwhile new calls are refused and the ticker still beats, so no
         * successor starts its run alongside them. Shorter than
         * spring.lifecycle.timeout-per-shutdown-phase.
         */
        private Duration shutdownTimeout = Duration.ofSeconds(10);

        /**
         * Whether to wrap each @LeaderOnly call that runs in a Micrometer Observation named
         * cxc.leader.only.run (a timer, and spans where tracing is set up). The cxc.leader.only
         * counter is kept either way.
         */
        private boolean observations = false;

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        public boolean isObservations() {
            return observations;
        }

        public void setObservations(boolean observations) {
            this.observations = observations;
        }
    }

    /**
     * The participants' heartbeat table: every process registers a slot in it and beats it on each
     * tick of the leader ticker, so each can tell which of the others are alive.
     */
    public static class Heartbeat {

        /** Whether this process registers in the heartbeat table (needs cxc.leader.enabled). */
        private boolean enabled = true;

        /** Base name of the heartbeat table's file: {directory}/{name}.heartbeat. */
        private String name = "participants";

        /**
         * Slots in the table: how many processes may take part at once. Fixed when the file is
         * created; every process must agree on it.
         */
        private int capacity = HeartbeatTable.TYPE.defaults().capacity();

        /**
         * Epochs (ticks of cxc.leader.tick-interval) a participant's beat may lag before it counts
         * as not alive and its slot may be reclaimed.
         */
        private long graceEpochs = HeartbeatTable.DEFAULT_GRACE_EPOCHS;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public int getCapacity() {
            return capacity;
        }

        public void setCapacity(int capacity) {
            this.capacity = capacity;
        }

        public long getGraceEpochs() {
            return graceEpochs;
        }

        public void setGraceEpochs(long graceEpochs) {
            this.graceEpochs = graceEpochs;
        }
    }

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
         * doubled. Settings per job (Recurring): cron (with zone), fixed-rate or fixed-delay, and
         * payload.
         */
        private Map<String, Recurring> recurring = new LinkedHashMap<>();

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
     * (doubled for each later attempt), then returned to its level; its last attempt in this
     * process dead-letters it (FanoutHandler.onDeadLetter, then acknowledged).
     */
    public static class FanoutRetryPolicy {

        /**
         * Attempts of one item in this process; the last failing one dead-letters it. Counted in
         * this process (the fan-out's slots keep no count).
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

    /** This copy's @CxcEventListener methods. */
    public static class Listeners {

        /**
         * This copy's name among the copies of the service: its listeners read under the reader
         * names {copy-name}/{listener id}, whose positions are kept across restarts, so it must be
         * unique per copy and the same when the copy restarts. Default:
         * {spring.application.name}-{server.port} (just the application's name without a port).
         */
        private @Nullable String copyName;

        public @Nullable String getCopyName() {
            return copyName;
        }

        public void setCopyName(@Nullable String copyName) {
            this.copyName = copyName;
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
