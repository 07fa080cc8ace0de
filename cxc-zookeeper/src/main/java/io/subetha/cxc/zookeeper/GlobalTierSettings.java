package io.subetha.cxc.zookeeper;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.common.PathUtils;

/**
 * How the ZooKeeper tier connects and where it keeps its state.
 *
 * @param connectString the ensemble, {@code host:port,host:port,...}
 * @param sessionTimeout the ZooKeeper session timeout: how long a whole host's death (or a
 *     partition) takes to fail over; a process crash does not wait for it
 * @param connectionTimeout how long to wait for a connection; also how long an operation waits for
 *     a lost connection before it fails
 * @param latchPath the latch's znode, e.g. {@code /cxc/<application>/leader}
 * @param hostRecord the host-local record, beside the election file
 * @param deletionsLog where the host-mates' deletions of dead leaders' nodes are logged
 * @param hostName this host's name as the other hosts see it in the latch
 */
public record GlobalTierSettings(
        String connectString,
        Duration sessionTimeout,
        Duration connectionTimeout,
        String latchPath,
        Path hostRecord,
        Path deletionsLog,
        String hostName) {

    public GlobalTierSettings {
        Objects.requireNonNull(connectString, "connectString");
        if (connectString.isBlank()) {
            throw new IllegalArgumentException(
                    "connectString is blank: pass the ensemble, e.g. zk1:2181,zk2:2181,zk3:2181");
        }
        requirePositive("sessionTimeout", sessionTimeout);
        requirePositive("connectionTimeout", connectionTimeout);
        PathUtils.validatePath(latchPath);
        if (latchPath.equals("/")) {
            throw new IllegalArgumentException("latchPath must not be the root znode");
        }
        Objects.requireNonNull(hostRecord, "hostRecord");
        Objects.requireNonNull(deletionsLog, "deletionsLog");
        Objects.requireNonNull(hostName, "hostName");
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
        if (value.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + " is too long: " + value);
        }
    }

    /**
     * Settings with the host record and deletions log beside {@code electionFile} ({@code
     * <name>.zookeeper} and {@code <name>.zookeeper-deletions}).
     */
    public static GlobalTierSettings beside(
            Path electionFile,
            String connectString,
            Duration sessionTimeout,
            Duration connectionTimeout,
            String latchPath,
            String hostName) {
        String base = electionFile.getFileName().toString();
        int dot = base.lastIndexOf('.');
        String name = dot > 0 ? base.substring(0, dot) : base;
        return new GlobalTierSettings(
                connectString,
                sessionTimeout,
                connectionTimeout,
                latchPath,
                electionFile.resolveSibling(name + ".zookeeper"),
                electionFile.resolveSibling(name + ".zookeeper-deletions"),
                hostName);
    }

    /**
     * A client (not started) of this tier's ensemble with its timeouts: the leader's latch and the
     * leases connect alike.
     */
    public CuratorFramework newClient() {
        return newClient(connectString, sessionTimeout, connectionTimeout);
    }

    static CuratorFramework newClient(String connectString, Duration session, Duration connection) {
        return CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) session.toMillis())
                .connectionTimeoutMs((int) connection.toMillis())
                .retryPolicy(new ExponentialBackoffRetry(100, 3, 1000))
                .build();
    }
}
