package io.subetha.cxc.zookeeper;

import io.subetha.cxc.process.Pids;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.zookeeper.curator.ZookeeperCuratorLockProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The baselines of the handover figures: one process taking one lock through Curator's {@link
 * InterProcessSemaphoreMutex} ({@code semaphore}) or ShedLock's {@link
 * ZookeeperCuratorLockProvider} ({@code shedlock}, trying every 10 ms as a ShedLock job would at
 * each run). Prints {@code ready <pid>}, then {@code held 0 <nanoTime>} once it holds, and keeps it
 * until killed. Args: kind connectString path sessionMillis lockAtMostForMillis.
 */
public final class RecipeLockChild {

    private RecipeLockChild() {}

    public static void main(String[] args) throws Exception {
        CuratorFramework client =
                CuratorFrameworkFactory.builder()
                        .connectString(args[1])
                        .sessionTimeoutMs(Integer.parseInt(args[3]))
                        .connectionTimeoutMs(1_000)
                        .retryPolicy(new ExponentialBackoffRetry(100, 3, 1000))
                        .build();
        client.start();
        client.blockUntilConnected(30, TimeUnit.SECONDS);
        Thread holder =
                new Thread(
                        () -> {
                            try {
                                hold(args[0], client, args[2], Long.parseLong(args[4]));
                            } catch (Exception e) {
                                e.printStackTrace();
                            }
                        });
        holder.setDaemon(true);
        holder.start();
        System.out.println("ready " + Pids.current());
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (in.readLine() != null) {
            // the test only closes stdin
        }
        Runtime.getRuntime().halt(0);
    }

    private static void hold(String kind, CuratorFramework client, String path, long atMostMillis)
            throws Exception {
        if (kind.equals("semaphore")) {
            new InterProcessSemaphoreMutex(client, path).acquire();
        } else {
            ZookeeperCuratorLockProvider provider = new ZookeeperCuratorLockProvider(client, path);
            Optional<SimpleLock> lock = Optional.empty();
            while (lock.isEmpty()) {
                lock =
                        provider.lock(
                                new LockConfiguration(
                                        Instant.now(),
                                        "job",
                                        Duration.ofMillis(atMostMillis),
                                        Duration.ZERO));
                if (lock.isEmpty()) {
                    LockSupport.parkNanos(10_000_000);
                }
            }
        }
        System.out.println("held 0 " + System.nanoTime());
    }
}
