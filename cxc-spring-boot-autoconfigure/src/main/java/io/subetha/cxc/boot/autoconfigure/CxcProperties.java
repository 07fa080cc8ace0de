package io.subetha.cxc.boot.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Configuration of cxc: where the files live and how the leader election runs. */
@ConfigurationProperties("cxc")
public class CxcProperties {

    /** Whether to set up cxc at all. */
    private boolean enabled = true;

    /**
     * Directory of the cxc files, shared by every process that coordinates through them. Default:
     * /dev/shm/cxc/{spring.application.name, or "application"} where /dev/shm exists, else the same
     * under java.io.tmpdir.
     */
    private @Nullable Path directory;

    /** Permissions of the files cxc creates, as ls -l shows them. */
    private String filePermissions = "rw-------";

    /**
     * Whether to refuse a directory (or file) that another user owns or that group or others may
     * write, and any symbolic link on the directory's path owned by someone other than you or root:
     * whoever can write there can hijack leadership. Turn off only knowingly.
     */
    private boolean strictPermissions = true;

    private final Leader leader = new Leader();

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

    /** The shared leader election and this process's ticker. */
    public static class Leader {

        /** Whether this process takes part in the leader election. */
        private boolean enabled = true;

        /** Base name of the election file: {directory}/{name}.cxc. */
        private String name = "leader";

        /**
         * Epochs the leader's heartbeat may lag the global epoch before any participant may take
         * over: the failover time of a leader that hangs alive (a dead one is replaced within a
         * tick).
         */
        private long graceEpochs = 3;

        /**
         * How often this process ticks the election: advances the epoch if due, beats as leader,
         * claims, and checks whether the leader's process is alive. Crash failover takes about one
         * tick.
         */
        private Duration tickInterval = Duration.ofMillis(50);

        /** Whether to step down on graceful shutdown, so a successor takes over within a tick. */
        private boolean stepDownOnShutdown = true;

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
    }
}
