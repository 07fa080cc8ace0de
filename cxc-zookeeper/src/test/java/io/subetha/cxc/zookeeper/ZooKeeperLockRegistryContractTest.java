package io.subetha.cxc.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.integration.CxcLockRegistry.CxcLock;
import io.subetha.cxc.integration.LockRegistryContract;
import io.subetha.cxc.lease.LeaseBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spring Integration's lock-registry contract, case for case, on {@link GlobalLeases}: the two
 * registries are two hosts on one ZooKeeper server. Then how a blocked cross-host lock waits.
 */
class ZooKeeperLockRegistryContractTest extends LockRegistryContract {

    private static ContractServer server;
    private String path;
    private GlobalLeases hostA;
    private GlobalLeases hostB;

    @BeforeAll
    static void startServer() throws Exception {
        server = ContractServer.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @Override
    protected List<LeaseBackend> openBackends(Path dir) {
        path = ContractServer.nextPath();
        hostA = server.leases(dir, "host-a", path);
        hostB = server.leases(dir, "host-b", path);
        return List.of(hostA, hostB);
    }

    @Override
    protected void closeBackends() {
        for (GlobalLeases host : List.of(hostA, hostB)) {
            host.close();
            host.local().close();
        }
    }

    /**
     * A lock() blocked by another host's holder waits on a ZooKeeper watch: while it waits, the
     * name's lock nodes do not change (no try every few ms), and the holder's unlock wakes it.
     */
    @Test
    void aLockBlockedByAnotherHostWaitsOnAWatchNotByTryingAgainAndAgain() throws Exception {
        CxcLock theirs = other.obtain("orders");
        theirs.lock();
        String parent = ZKPaths.makePath(path, GlobalLeases.element("orders"));
        try (CuratorFramework observer =
                CuratorFrameworkFactory.newClient(server.connectString(), new RetryOneTime(100))) {
            observer.start();
            CxcLock mine = registry.obtain("orders");
            Future<Long> waiter =
                    threads.submit(
                            () -> {
                                mine.lock();
                                long token = mine.token();
                                mine.unlock();
                                return token;
                            });
            await().atMost(Duration.ofSeconds(30)).until(() -> lockedInThisProcess(mine));
            int before = observer.checkExists().forPath(parent).getCversion();
            // Trying every 5 ms would create and delete two nodes each time.
            await().during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(5))
                    .until(
                            () -> observer.checkExists().forPath(parent).getCversion() - before,
                            changes -> changes <= 2);
            long held = theirs.token();
            theirs.unlock();
            assertThat(waiter.get(30, TimeUnit.SECONDS)).isGreaterThan(held);
        }
    }
}
