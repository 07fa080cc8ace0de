package io.subetha.cxc.zookeeper.boot;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The ZooKeeper backend: host leaders elect one global leader through a Curator LeaderLatch.
 * Setting {@code cxc.zookeeper.connect-string} (or {@code cxc.leader.backend=zookeeper}) switches
 * it on.
 */
@ConfigurationProperties("cxc.zookeeper")
public class CxcZooKeeperProperties {

    /**
     * The ZooKeeper ensemble, host:port pairs separated by commas (e.g.
     * zk1:2181,zk2:2181,zk3:2181). Setting it switches the ZooKeeper backend on unless
     * cxc.leader.backend=local.
     */
    private @Nullable String connectString;

    /**
     * The ZooKeeper session timeout of each host leader's session: how long failover takes when a
     * whole host dies or is cut off (a crashed process is replaced at once by its host-mates). The
     * servers clamp it to 2..20 times their tickTime (4..40 s with ZooKeeper's default 2 s tick).
     */
    private Duration sessionTimeout = Duration.ofSeconds(10);

    /**
     * How long to wait for a connection to the ensemble, and how long an operation waits for a lost
     * connection before it fails. A leader stops leading as soon as its connection is suspended,
     * not after this timeout.
     */
    private Duration connectionTimeout = Duration.ofSeconds(3);

    /** The latch's znode. Default: /cxc/{spring.application.name, or "application"}/leader. */
    private @Nullable String path;

    /**
     * This host's name as the other hosts see it in /actuator/cxc. Default: the machine's host
     * name, then ':' and cxc.directory (so hosts simulated by directories on one machine differ).
     */
    private @Nullable String hostName;

    public @Nullable String getConnectString() {
        return connectString;
    }

    public void setConnectString(@Nullable String connectString) {
        this.connectString = connectString;
    }

    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    public @Nullable String getPath() {
        return path;
    }

    public void setPath(@Nullable String path) {
        this.path = path;
    }

    public @Nullable String getHostName() {
        return hostName;
    }

    public void setHostName(@Nullable String hostName) {
        this.hostName = hostName;
    }
}
