package io.subetha.cxc.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.lease.OwnerLease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Figures, not assertions on time: an uncontended lock + unlock through {@link GlobalLeases} beside
 * Curator's own locks, on the same 3-node ensemble in the same run ({@code -Dzk.lease.rounds}, 200
 * unless given). Printed as {@code cxc: figures ...} lines; the test checks only that every round
 * took its lock.
 */
class LeaseLatencyFiguresTest {

    static final int ROUNDS = Integer.getInteger("zk.lease.rounds", 200);

    @TempDir Path temp;

    @FunctionalInterface
    interface Round {
        boolean lockAndUnlock() throws Exception;
    }

    @Test
    void lockAndUnlockBesideCuratorsLocks() throws Exception {
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
                                        Duration.ofMillis(Ensemble.MAX_SESSION_MILLIS),
                                        Duration.ofSeconds(1),
                                        "/figures/cxc",
                                        temp.resolve("host"),
                                        "host"))) {
            CuratorFramework client =
                    GlobalTierSettings.newClient(
                            ensemble.connectString(),
                            Duration.ofMillis(Ensemble.MAX_SESSION_MILLIS),
                            Duration.ofSeconds(1));
            client.start();
            try {
                client.blockUntilConnected(10, TimeUnit.SECONDS);
                InterProcessSemaphoreMutex semaphore =
                        new InterProcessSemaphoreMutex(client, "/figures/semaphore");
                InterProcessMutex mutex = new InterProcessMutex(client, "/figures/mutex");
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
