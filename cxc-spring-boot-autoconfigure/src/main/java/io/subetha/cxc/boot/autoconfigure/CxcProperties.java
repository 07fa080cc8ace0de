package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.election.Preemption;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.liveness.HeartbeatTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of cxc: where the files live, how the leader election runs, the participants'
 * heartbeat table, and the primitives declared by name, each kind one typed class in {@link
 * DeclaredProperties}. The one source of every setting: its name, type and description (the IDE's
 * metadata is generated from this javadoc); a setting a core settings record holds takes that
 * record's default, and its limits are checked only there ({@link CxcSettings} maps each section to
 * its record).
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
    private final Map<String, DeclaredProperties.Barrier> barriers = new LinkedHashMap<>();

    /**
     * Failover watchdogs by name over the participants' heartbeat table: each is a bean of that
     * name over the file {directory}/{name}.watchdog, scanned by the ticker every tick. Settings
     * per name (Watchdog): grace-epochs, work-per-slot.
     */
    private final Map<String, DeclaredProperties.Watchdog> watchdogs = new LinkedHashMap<>();

    /**
     * Pass registries by name: each is a bean of that name over the file {directory}/{name}.passes;
     * PassHandler beans annotated with @PassId are registered in it on startup and unregistered on
     * shutdown. Settings per name (PassRegistryDeclaration): max-passes, mailbox-slots,
     * max-payload-bytes.
     */
    private final Map<String, DeclaredProperties.PassRegistryDeclaration> passRegistries =
            new LinkedHashMap<>();

    /**
     * Progress tasks by name: each is a bean of that name (inject it with @Qualifier) over the file
     * {directory}/{name}.progress, shown in /actuator/cxc with its percent and as the gauge
     * cxc.progress{task}. Settings per name (ProgressTask): total.
     */
    private final Map<String, DeclaredProperties.ProgressTask> progressTasks =
            new LinkedHashMap<>();

    /**
     * Background schedulers by name: each is a bean of that name over the file
     * {directory}/{name}.scheduler, its job and result codecs given by the JobHandler (or
     * SchedulerCodecs) bean naming it; the JobHandler runs its jobs on the starter's worker pool,
     * and every tick scans for dead or silent workers; a job whose handler throws is retried by its
     * retry policy, then FAILED. Settings per name (Scheduler): capacity, grace, timetable-entries,
     * workers, shutdown-timeout, retry (retry.max-attempts, retry.initial-backoff,
     * retry.multiplier, retry.max-backoff), history, trace-context, recurring jobs by name
     * (recurring), and concurrency limits by job type across every process (limits).
     */
    private final Map<String, DeclaredProperties.Scheduler> schedulers = new LinkedHashMap<>();

    /**
     * Priority fan-outs by name: each is a bean of that name over the file
     * {directory}/{name}.fanout, its item codec given by the FanoutHandler (or FanoutCodec) bean
     * naming it; the FanoutHandler handles its items on the starter's worker pool (claim, handle,
     * acknowledge), highest priority first. Settings per name (Fanout): capacity, grace, workers,
     * shutdown-timeout, retry (max-attempts, backoff).
     */
    private final Map<String, DeclaredProperties.Fanout> fanouts = new LinkedHashMap<>();

    /**
     * Event logs by name: each is a bean of that name (an EventStateLog) over the file
     * {directory}/{name}.events, its event and state codecs and its fold given by the
     * EventLogCodecs bean naming it (without one, long events folded into their count); the leader
     * folds it every tick, CxcEventPublisher publishes to it, and every @CxcEventListener method
     * naming it runs for each event, its position saved in {directory}/{name}.readers. Settings per
     * name (EventLog): capacity.
     */
    private final Map<String, DeclaredProperties.EventLog> eventLogs = new LinkedHashMap<>();

    private final Listeners listeners = new Listeners();

    /**
     * Shared regions (crash-safe sub-allocators) by name: each is a bean of that name over the file
     * {directory}/{name}.region. Settings per name (Region): capacity-bytes, lock-timeout,
     * free-cache.
     */
    private final Map<String, DeclaredProperties.Region> regions = new LinkedHashMap<>();

    /**
     * NaN-boxed value cells by name: each is a bean over the file {directory}/{name}.nan. Settings
     * per name (NaNValues): cells.
     */
    private final Map<String, DeclaredProperties.NaNValues> nanValues = new LinkedHashMap<>();

    /**
     * NaN-boxed cells of user-tagged values by name: each is a bean over the file
     * {directory}/{name}.nantagged. Settings per name (NaNTaggedValues): cells, max-user-tag.
     */
    private final Map<String, DeclaredProperties.NaNTaggedValues> nanTaggedValues =
            new LinkedHashMap<>();

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

    public Map<String, DeclaredProperties.Barrier> getBarriers() {
        return barriers;
    }

    public Map<String, DeclaredProperties.Watchdog> getWatchdogs() {
        return watchdogs;
    }

    public Map<String, DeclaredProperties.PassRegistryDeclaration> getPassRegistries() {
        return passRegistries;
    }

    public Map<String, DeclaredProperties.ProgressTask> getProgressTasks() {
        return progressTasks;
    }

    public Map<String, DeclaredProperties.Scheduler> getSchedulers() {
        return schedulers;
    }

    public Map<String, DeclaredProperties.Fanout> getFanouts() {
        return fanouts;
    }

    public Map<String, DeclaredProperties.EventLog> getEventLogs() {
        return eventLogs;
    }

    public Listeners getListeners() {
        return listeners;
    }

    public Map<String, DeclaredProperties.Region> getRegions() {
        return regions;
    }

    public Map<String, DeclaredProperties.NaNValues> getNanValues() {
        return nanValues;
    }

    public Map<String, DeclaredProperties.NaNTaggedValues> getNanTaggedValues() {
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
}
