package io.subetha.cxc.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/**
 * Waiters for names held on another host: one ZooKeeper children watch per name's lock-node parent,
 * armed after a failed look and fired by any change of its nodes (a release, a holder's session
 * ending, another contender's try) or of the connection. A waiter looks again only then, so a
 * blocked acquirer writes nothing to ZooKeeper while the holder keeps the name; a lock registry
 * that calls in short slices just waits on the same armed watch again.
 */
final class NameWatches {

    /** The longest a waiter trusts an armed watch without looking again. */
    static final Duration SAFETY_LOOK = Duration.ofSeconds(1);

    /** A watch armed on one parent: counted down when ZooKeeper fires it. */
    private record Armed(CountDownLatch fired, long armedAtNanos) {
        boolean spent() {
            return fired.getCount() == 0
                    || System.nanoTime() - armedAtNanos > SAFETY_LOOK.toNanos();
        }
    }

    private final CuratorFramework client;
    private final Map<String, Armed> armed = new ConcurrentHashMap<>();

    NameWatches(CuratorFramework client) {
        this.client = client;
    }

    /**
     * Waits up to {@code timeout} for {@code look} to succeed, looking once now unless a watch on
     * {@code parent} is armed and has not fired.
     */
    boolean await(String parent, BooleanSupplier look, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Armed current = armed.get(parent);
            if (current == null || current.spent()) {
                if (look.getAsBoolean()) {
                    return true;
                }
                // Armed after the failed look: a release between the two shows in the listing.
                current = arm(parent);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            if (current == null) {
                continue; // no holder's node is left: look again at once
            }
            try {
                if (!current.fired().await(left, TimeUnit.NANOSECONDS)) {
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the caller's look sees it
                return false;
            }
        }
    }

    /** A new watch on {@code parent}'s nodes, or null if it has none now (the name is free). */
    private Armed arm(String parent) {
        CountDownLatch fired = new CountDownLatch(1);
        Armed next = new Armed(fired, System.nanoTime());
        List<String> nodes;
        try {
            nodes =
                    client.getChildren()
                            .usingWatcher((Watcher) event -> fired.countDown())
                            .forPath(parent);
        } catch (KeeperException.NoNodeException free) {
            return null;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return next; // no watch: wait out this call, the next one looks again
        }
        if (nodes.isEmpty()) {
            return null;
        }
        armed.put(parent, next);
        return next;
    }
}
