package io.subetha.cxc.zookeeper.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.integration.CxcLockRegistry;
import io.subetha.cxc.integration.boot.CxcLockRegistryAutoConfiguration;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.shedlock.CxcLockProvider;
import io.subetha.cxc.shedlock.boot.CxcShedLockAutoConfiguration;
import io.subetha.cxc.zookeeper.GlobalLeases;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The same auto-configured {@link CxcLockProvider}, switched to {@link GlobalLeases} by the
 * existing backend property: its locks are then ZooKeeper's too, with ZooKeeper's tokens; and
 * {@link CxcLockRegistry} likewise, two simulated hosts in one JVM.
 */
class ZooKeeperLeaseBackendsTest {

    @TempDir Path temp;

    private TestingServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcZooKeeperAutoConfiguration.class,
                                CxcAutoConfiguration.class,
                                CxcShedLockAutoConfiguration.class,
                                CxcLockRegistryAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "spring.application.name=zk-lease-test");
    }

    @Test
    void theBackendPropertyPutsShedLockOnZooKeeperWithZooKeepersToken() throws Exception {
        runner().withPropertyValues(
                        "cxc.zookeeper.connect-string=" + server.getConnectString(),
                        "cxc.leader.backend=zookeeper")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            CxcLockProvider provider = context.getBean(CxcLockProvider.class);
                            assertThat(provider.backend()).isInstanceOf(GlobalLeases.class);
                            assertThat(context.getBean(CxcLockRegistry.class).backend())
                                    .isInstanceOf(GlobalLeases.class);
                            assertThat(provider.leases().file())
                                    .isEqualTo(temp.resolve("cxc").resolve("shedlock.cxc"));

                            SimpleLock lock = provider.lock(config("report")).orElseThrow();
                            String parent = "/cxc/zk-lease-test/leases/shedlock/nreport";
                            try (CuratorFramework zk = client()) {
                                List<String> nodes = zk.getChildren().forPath(parent);
                                assertThat(nodes).hasSize(1);
                                Stat stat = zk.checkExists().forPath(parent + "/" + nodes.get(0));
                                long token = CxcLockProvider.currentFencingToken().orElseThrow();
                                assertThat(token).isEqualTo(stat.getCzxid());
                                assertThat(provider.lock(config("report"))).isEmpty();
                                lock.unlock();
                                assertThat(zk.getChildren().forPath(parent)).isEmpty();
                            }
                            SimpleLock again = provider.lock(config("report")).orElseThrow();
                            assertThat(CxcLockProvider.currentFencingToken().orElseThrow())
                                    .as("ZooKeeper's token rises")
                                    .isGreaterThan(0);
                            again.unlock();
                        });
    }

    @Test
    void withoutTheBackendTheLocksStayOnTheHost() {
        runner().run(
                        context ->
                                assertThat(context.getBean(CxcLockProvider.class).backend())
                                        .isNotInstanceOf(GlobalLeases.class));
    }

    @Test
    void aRegistryLockIsHeldAgainstAnotherHostUntilUnlocked() throws Exception {
        try (OwnerLease tableA = table("host-a");
                OwnerLease tableB = table("host-b");
                GlobalLeases a = leases(tableA, "host-a");
                GlobalLeases b = leases(tableB, "host-b")) {
            CxcLockRegistry onA = new CxcLockRegistry(a, Duration.ofMinutes(1));
            CxcLockRegistry onB = new CxcLockRegistry(b, Duration.ofMinutes(1));
            CxcLockRegistry.CxcLock lockA = onA.obtain("order-42");
            assertThat(lockA.tryLock()).isTrue();
            long first = lockA.token();
            CxcLockRegistry.CxcLock lockB = onB.obtain("order-42");
            assertThat(lockB.tryLock()).as("held on the other host").isFalse();
            lockA.unlock();
            assertThat(lockB.tryLock(10, TimeUnit.SECONDS)).isTrue();
            assertThat(lockB.token())
                    .as("ZooKeeper's token rises across hosts")
                    .isGreaterThan(first);
            lockB.unlock();
        }
    }

    private OwnerLease table(String host) {
        return OwnerLease.openOrCreate(
                temp.resolve(host).resolve("locks.cxc"), new OwnerLease.Settings(16));
    }

    private GlobalLeases leases(OwnerLease table, String host) {
        return new GlobalLeases(
                table,
                new GlobalLeases.Settings(
                        server.getConnectString(),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(1),
                        "/cxc/registry-test/leases/locks",
                        temp.resolve(host),
                        host));
    }

    private CuratorFramework client() {
        CuratorFramework zk =
                CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        zk.start();
        return zk;
    }

    private static LockConfiguration config(String name) {
        return new LockConfiguration(Instant.now(), name, Duration.ofMinutes(1), Duration.ZERO);
    }
}
