package io.subetha.cxc.zookeeper;

import io.subetha.cxc.process.Pids;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The baseline: a plain Curator {@link LeaderLatch} per process, its own session each, no host
 * tier. Prints {@code ready <pid>}, then {@code plain 1 <nanoTime>} when it gains leadership and
 * {@code plain 0 <nanoTime>} when it loses it. Args: connectString latchPath sessionMillis
 * connectionMillis.
 */
public final class PlainLatchChild {

    private PlainLatchChild() {}

    public static void main(String[] args) throws Exception {
        CuratorFramework client =
                CuratorFrameworkFactory.builder()
                        .connectString(args[0])
                        .sessionTimeoutMs(Integer.parseInt(args[2]))
                        .connectionTimeoutMs(Integer.parseInt(args[3]))
                        .retryPolicy(new ExponentialBackoffRetry(100, 3, 1000))
                        .build();
        client.start();
        LeaderLatch latch = new LeaderLatch(client, args[1], Long.toString(Pids.current()));
        latch.addListener(
                new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        System.out.println("plain 1 " + System.nanoTime());
                    }

                    @Override
                    public void notLeader() {
                        System.out.println("plain 0 " + System.nanoTime());
                    }
                });
        latch.start();
        System.out.println("ready " + Pids.current());
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (in.readLine() != null) {
            // the test only closes stdin
        }
        System.exit(0);
    }
}
