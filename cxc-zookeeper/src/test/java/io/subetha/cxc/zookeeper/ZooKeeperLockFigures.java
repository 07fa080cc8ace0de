package io.subetha.cxc.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.shedlock.CxcLockProvider;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.zookeeper.curator.ZookeeperCuratorLockProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Figures, not assertions on time (so {@code mvn verify} does not run it; its name is no test's):
 * the ZooKeeper backend's locks beside Curator's own and ShedLock's ZooKeeper provider, on the same
 * 3-node ensemble in the same run. Run it with {@code -Dtest=ZooKeeperLockFigures}; {@code
 * -Dzk.lease.rounds} (200) sets the latency rounds, {@code -Dzk.handover.rounds} (3) the crash
 * rounds. Printed as {@code cxc: figures ...} lines.
 */
class ZooKeeperLockFigures {

    static final int ROUNDS = Integer.getInteger("zk.lease.rounds", 200);
    static final int HANDOVERS = Integer.getInteger("zk.handover.rounds", 3);
    static final Duration SESSION = Duration.ofMillis(Ensemble.MAX_SESSION_MILLIS);
    static final Duration SHEDLOCK_AT_MOST = Duration.ofSeconds(5);

    @TempDir Path temp;

    @FunctionalInterface
    interface Round {
        boolean lockAndUnlock() throws Exception;
    }

    @Test
    void lockAndUnlockBesideCuratorsLocksAndShedLocksProvider() throws Exception {
        try (Ensemble ensemble = Ensemble.start(temp.resolve("zk"));
                OwnerLease table =
                        OwnerLease.openOrCreate(
                                temp.resolve("host").resolve("leases.cxc"),
                                new OwnerLease.Settings(16));
                GlobalLeases leases =
                        new GlobalLeases(
                                table,
                                new GlobalLeases.Settings(
                                        ensemble.connectString(),
                                        SESSION,
                                        Duration.ofSeconds(1),
                                        "/figures/cxc",
                                        temp.resolve("host"),
                                        "host"))) {
            CuratorFramework client =
                    GlobalTierSettings.newClient(
                            ensemble.connectString(), SESSION, Duration.ofSeconds(1));
            client.start();
            try {
                client.blockUntilConnected(10, TimeUnit.SECONDS);
                InterProcessSemaphoreMutex semaphore =
                        new InterProcessSemaphoreMutex(client, "/figures/semaphore");
                InterProcessMutex mutex = new InterProcessMutex(client, "/figures/mutex");
                LockProvider shedLock =
                        new ZookeeperCuratorLockProvider(client, "/figures/shedlock");
                CxcLockProvider cxc = new CxcLockProvider(leases);
                // A just-started ensemble may refuse the first requests: answered empty.
                await("a first lease")
                        .atMost(Duration.ofSeconds(30))
                        .until(
                                () ->
                                        leases.tryAcquire("report", Duration.ofMinutes(1))
                                                .map(leases::release)
                                                .orElse(false));
                print(
                        "GlobalLeases tryAcquire + release",
                        () -> {
                            var held = leases.tryAcquire("report", Duration.ofMinutes(1));
                            return held.isPresent() && leases.release(held.get());
                        });
                print("CxcLockProvider on ZooKeeper lock + unlock", () -> unlocked(cxc));
                print(
                        "ShedLock ZookeeperCuratorLockProvider lock + unlock",
                        () -> unlocked(shedLock));
                print(
                        "Curator InterProcessSemaphoreMutex acquire + release",
                        () -> {
                            boolean got = semaphore.acquire(10, TimeUnit.SECONDS);
                            semaphore.release();
                            return got;
                        });
                print(
                        "Curator InterProcessMutex acquire + release",
                        () -> {
                            boolean got = mutex.acquire(10, TimeUnit.SECONDS);
                            mutex.release();
                            return got;
                        });
            } finally {
                client.close();
            }
        }
    }

    private static boolean unlocked(LockProvider provider) {
        var lock =
                provider.lock(
                        new LockConfiguration(
                                Instant.now(), "report", Duration.ofMinutes(1), Duration.ZERO));
        lock.ifPresent(held -> held.unlock());
        return lock.isPresent();
    }

    /**
     * A holder process SIGKILLed: how long until a waiting process on another host holds. cxc: an
     * idle host-mate of the dead holder ends its session; Curator's semaphore: the session expires
     * ({@link #SESSION}); ShedLock's provider: its lock node outlives the process until
     * lockAtMostFor ({@link #SHEDLOCK_AT_MOST}) has passed.
     */
    @Test
    void processCrashHandoverBesideCuratorsSemaphoreAndShedLocksProvider() throws Exception {
        try (Ensemble ensemble = Ensemble.start(temp.resolve("zk"))) {
            handovers("cxc (GlobalLeases, host-mate ends the session)", ensemble, "cxc");
            handovers("Curator InterProcessSemaphoreMutex (session expiry)", ensemble, "semaphore");
            handovers(
                    "ShedLock ZookeeperCuratorLockProvider (lockAtMostFor)", ensemble, "shedlock");
        }
    }

    private void handovers(String what, Ensemble ensemble, String kind) {
        long[] micros = new long[HANDOVERS];
        for (int round = 0; round < HANDOVERS; round++) {
            String path = "/figures/handover-" + kind + "-" + round;
            try (ChildJvmGroup children = new ChildJvmGroup()) {
                List<String> waiterLines = new CopyOnWriteArrayList<>();
                ChildJvm holder = children.add(start(ensemble, kind, path, "host-a", false, round));
                holder.awaitPrefixed("held ", Duration.ofSeconds(60));
                if (kind.equals("cxc")) {
                    children.add(start(ensemble, kind, path, "host-a", true, round));
                }
                ChildJvm waiter = children.add(start(ensemble, kind, path, "host-b", false, round));
                Fleet.collect(waiter, waiterLines::add);
                long killed = System.nanoTime();
                holder.process().destroyForcibly();
                await(what + " successor")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(2))
                        .until(() -> waiterLines.stream().anyMatch(l -> l.startsWith("held ")));
                String held =
                        waiterLines.stream().filter(l -> l.startsWith("held ")).findFirst().get();
                micros[round] = (Long.parseLong(held.split(" ")[2]) - killed) / 1_000;
            }
        }
        Arrays.sort(micros);
        System.out.printf(
                "cxc: figures handover %s: median %.1f ms, max %.1f ms over %d SIGKILLs%n",
                what, micros[HANDOVERS / 2] / 1e3, micros[HANDOVERS - 1] / 1e3, HANDOVERS);
    }

    private ChildJvm start(
            Ensemble ensemble, String kind, String path, String host, boolean idle, int round) {
        List<String> args = new ArrayList<>();
        String main;
        if (kind.equals("cxc")) {
            main = LeaseChild.class.getName();
            args.addAll(
                    List.of(
                            temp.resolve(host + "-" + round).toString(),
                            ensemble.connectString(),
                            path,
                            host,
                            Long.toString(SESSION.toMillis()),
                            "1000",
                            "job",
                            idle ? "-1" : "0"));
        } else {
            main = RecipeLockChild.class.getName();
            args.addAll(
                    List.of(
                            kind,
                            ensemble.connectString(),
                            path,
                            Long.toString(SESSION.toMillis()),
                            Long.toString(SHEDLOCK_AT_MOST.toMillis())));
        }
        ChildJvm jvm =
                ChildJvm.start(
                        kind + "-" + host + (idle ? "-idle" : ""),
                        List.of(),
                        System.getProperty("java.class.path"),
                        main,
                        args,
                        null);
        jvm.awaitPrefixed("ready ", Duration.ofSeconds(60));
        return jvm;
    }

    private static void print(String what, Round round) throws Exception {
        long[] micros = new long[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
            long start = System.nanoTime();
            assertThat(round.lockAndUnlock()).as(what + " round " + i).isTrue();
            micros[i] = (System.nanoTime() - start) / 1_000;
        }
        Arrays.sort(micros);
        System.out.printf(
                "cxc: figures %s: median %d µs, p90 %d µs, max %d µs over %d rounds%n",
                what, micros[ROUNDS / 2], micros[ROUNDS * 9 / 10], micros[ROUNDS - 1], ROUNDS);
    }
}
