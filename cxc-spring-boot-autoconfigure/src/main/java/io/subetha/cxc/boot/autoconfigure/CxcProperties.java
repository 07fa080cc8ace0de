package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.election.Preemption;
import io.subetha.cxc.election.SharedLeaderElection;
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
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

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
     * and every tick scans for dead or silent workers. Settings per name (Scheduler): capacity,
     * grace, workers, shutdown-timeout.
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
