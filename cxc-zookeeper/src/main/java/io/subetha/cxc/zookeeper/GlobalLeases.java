package io.subetha.cxc.zookeeper;

import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Named leases across hosts: the host-local {@link OwnerLease} first, then a lock node on
 * ZooKeeper, taken by the host's holder only.
 *
 * <p><b>The two tiers.</b> A name is first leased in the host's lease table (nanoseconds; freed the
 * moment its holder dies), so of each host at most one process, its holder, goes to ZooKeeper for a
 * name. There it creates an ephemeral sequential node under {@code <path>/n<name>} and holds the
 * name if its node is the lowest; otherwise it deletes its node and is refused (a try, as
 * ShedLock's and {@code tryLock}'s contracts ask: no queue). Why not {@code
 * InterProcessSemaphoreMutex}: its lease nodes are hidden in the recipe and its acquire waits in a
 * queue; here a host-mate must find and judge the node a dead holder left, so the node carries its
 * host and PID, and a node path is never reused, so deleting one by path can only ever delete the
 * dead holder's.
 *
 * <p><b>The fencing token</b> is the lock node's {@code czxid}: ZooKeeper's transaction id of its
 * creation. A holder's node is the lowest when it takes the name, so every earlier holder's node
 * was created before it: tokens rise with every acquisition of a name, on any host, and never go
 * back (zxids are totally ordered across the ensemble and never reused, even when the name's parent
 * node is deleted while unused).
 *
 * <p><b>A dead holder is replaced at once.</b> A host-mate that takes the host-local lease of a
 * name after its holder died finds the dead holder's node below its own, sees (host, PID and start
 * time) that the process is gone, and deletes it. And every process sweeps its host's session
 * records ({@link SessionReaper}) every {@link #SWEEP}: a dead host-mate's session is re-attached
 * and closed, so all of its nodes go at once, for holders on other hosts too. A whole host lost
 * frees its names after the session timeout, as ZooKeeper's ephemerals do.
 *
 * <p><b>A lease's bound holds across hosts.</b> A lock node carries its lease's end in wall-clock
 * millis ({@link #extend} rewrites it); a contender on any host deletes a node whose end has
 * passed, as its holder's own {@link #isHeld} turned false then (a clock skew between hosts moves
 * this by the skew; the fencing token still orders the holders). A node this process left behind (a
 * lease lost while the ensemble was unreachable, whose deletion failed and whose session outlived
 * the outage) is deleted at its next try of the name, and every failed deletion is retried each
 * {@link #SWEEP} once the ensemble answers: a lost lease never blocks its name for longer.
 *
 * <p><b>Waiting.</b> A waiter for a name another host holds sleeps on a ZooKeeper watch of the
 * name's nodes ({@link NameWatches}) and tries again only when they change.
 *
 * <p><b>Suspended means lost.</b> On {@link ConnectionState#SUSPENDED} or {@code LOST} every lease
 * held is lost at once ({@link #isHeld} answers false, {@link #extend} refuses): the ensemble may
 * already have expired the session and given the name to another host. The holder stops and
 * releases; a new acquisition needs the connection back.
 */
public final class GlobalLeases implements LeaseBackend, AutoCloseable {

    /** How often each process sweeps its host's session records for dead host-mates. */
    public static final Duration SWEEP = Duration.ofMillis(100);

    private static final Logger logger = LoggerFactory.getLogger(GlobalLeases.class);
    private static final String NODE = "lock-";

    /**
     * Where and how to connect.
     *
     * @param path the parent znode of every name's lock node, e.g. {@code /cxc/myapp/leases}
     * @param hostDirectory the host-local directory of the session records (the cxc directory)
     * @param hostName this host's name as other hosts see it in a lock node
     */
    public record Settings(
            String connectString,
            Duration sessionTimeout,
            Duration connectionTimeout,
            String path,
            Path hostDirectory,
            String hostName) {
        public Settings {
            Objects.requireNonNull(connectString, "connectString");
            Objects.requireNonNull(sessionTimeout, "sessionTimeout");
            Objects.requireNonNull(connectionTimeout, "connectionTimeout");
            org.apache.zookeeper.common.PathUtils.validatePath(path);
            Objects.requireNonNull(hostDirectory, "hostDirectory");
            Objects.requireNonNull(hostName, "hostName");
            if (hostName.contains(" ")) {
                throw new IllegalArgumentException("hostName must not contain spaces: " + hostName);
            }
        }
    }

    /** A name held across hosts: pass it back to extend or release it. */
    public static final class Held implements LeaseBackend.Held {
        private final OwnerLease.Lease local;
        private final String node;
        private final long token;
        private final long epoch;
        private final AtomicBoolean released = new AtomicBoolean();

        private Held(OwnerLease.Lease local, String node, long token, long epoch) {
            this.local = local;
            this.node = node;
            this.token = token;
            this.epoch = epoch;
        }

        @Override
        public String name() {
            return local.name();
        }

        @Override
        public long acquiredAtNanos() {
            return local.acquiredAtNanos();
        }

        /** ZooKeeper's fencing token: the lock node's czxid, above every earlier holder's. */
        @Override
        public long token() {
            return token;
        }

        /** The host-local lease under it. */
        public OwnerLease.Lease local() {
            return local;
        }

        @Override
        public String toString() {
            return "global lease " + name() + " (token " + token + ", node " + node + ")";
        }
    }

    private final OwnerLease leases;
    private final Settings settings;
    private final long pid = Pids.current();
    private final long startTime = ProcessProbe.startTime(pid);
    private final CuratorFramework client;
    private final SessionReaper reaper;
    private final ScheduledExecutorService sweeper;
    private final NameWatches watches;

    /** Raised by every SUSPENDED or LOST: leases taken under an older epoch are lost. */
    private volatile long epoch;

    private long recordedSession;

    /** Lock nodes released or lost whose deletion failed: retried every sweep. */
    private final Set<String> undeleted = ConcurrentHashMap.newKeySet();

    /**
     * Connects to the ensemble (waiting up to the connection timeout for a first connection) and
     * starts sweeping the host's session records.
     *
     * @param leases the host-local lease table (which the caller closes)
     */
    public GlobalLeases(OwnerLease leases, Settings settings) {
        this.leases = Objects.requireNonNull(leases, "leases");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.reaper =
                new SessionReaper(
                        settings.hostDirectory(),
                        pid,
                        startTime,
                        settings.connectString(),
                        settings.connectionTimeout());
        this.client =
                GlobalTierSettings.newClient(
                        settings.connectString(),
                        settings.sessionTimeout(),
                        settings.connectionTimeout());
        client.getConnectionStateListenable().addListener((c, state) -> stateChanged(state));
        this.watches = new NameWatches(client);
        client.start();
        try {
            client.blockUntilConnected(
                    (int) settings.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        this.sweeper =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "cxc-zookeeper-lease-sweeper");
                            t.setDaemon(true);
                            return t;
                        });
        sweeper.scheduleWithFixedDelay(this::sweep, 0, SWEEP.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void sweep() {
        try {
            retryDeletions();
            reaper.sweep();
        } catch (RuntimeException e) {
            logger.warn("cxc: sweeping the host's ZooKeeper session records failed", e);
        }
    }

    private void stateChanged(ConnectionState state) {
        if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
            epoch++; // only Curator's event thread writes it
            logger.info("cxc: ZooKeeper connection {}: every global lease held is lost", state);
        }
    }

    @Override
    public OwnerLease local() {
        return leases;
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Takes {@code name} across hosts for at most {@code atMost} (the host-local lease's bound), or
     * answers empty when any process, on this host or another, holds it, or when ZooKeeper cannot
     * be reached now.
     */
    @Override
    public Optional<LeaseBackend.Held> tryAcquire(String name, Duration atMost) {
        Optional<OwnerLease.Lease> local = leases.tryAcquire(name, pid, atMost);
        if (local.isEmpty()) {
            return Optional.empty();
        }
        boolean done = false;
        try {
            Optional<Held> held = acquireNode(local.get(), atMost);
            done = held.isPresent();
            return held.map(LeaseBackend.Held.class::cast);
        } finally {
            if (!done) {
                leases.release(local.get());
            }
        }
    }

    private Optional<Held> acquireNode(OwnerLease.Lease local, Duration atMost) {
        long since = epoch;
        // The client's own view, not a listener's flag: Curator tells listeners after
        // blockUntilConnected returns. A loss told later still raises the epoch.
        if (!client.getZookeeperClient().isConnected()) {
            return Optional.empty();
        }
        String parent = ZKPaths.makePath(settings.path(), element(local.name()));
        String ours = null;
        try {
            recordSession();
            Stat stat = new Stat();
            ours =
                    client.create()
                            .storingStatIn(stat)
                            .creatingParentContainersIfNeeded()
                            .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                            .forPath(ZKPaths.makePath(parent, NODE), owner(atMost));
            if (lowestAfterClearingDead(parent, ZKPaths.getNodeFromPath(ours)) && epoch == since) {
                return Optional.of(new Held(local, ours, stat.getCzxid(), since));
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            logger.debug("cxc: cannot take {} on ZooKeeper: {}", local.name(), e.toString());
        }
        if (ours != null) {
            deleteQuietly(ours);
        }
        return Optional.empty();
    }

    /** Puts this process's session on record before any node exists in it. */
    private synchronized void recordSession() throws Exception {
        ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
        long session = zooKeeper.getSessionId();
        if (session != recordedSession) {
            reaper.record(session, zooKeeper.getSessionPasswd());
            recordedSession = session;
        }
    }

    /**
     * Whether {@code ours} is the lowest node of the name once the nodes of this host's dead
     * processes below it are deleted. This process holds the host-local lease, so a node of this
     * host below ours belongs to an earlier holder: deleted only if {@code /proc} shows it dead.
     */
    private boolean lowestAfterClearingDead(String parent, String ours) throws Exception {
        List<String> children = client.getChildren().forPath(parent);
        for (String child : children) {
            if (!child.startsWith(NODE) || sequence(child) >= sequence(ours)) {
                continue;
            }
            String path = ZKPaths.makePath(parent, child);
            String[] owner;
            try {
                owner =
                        new String(client.getData().forPath(path), StandardCharsets.UTF_8)
                                .split(" ");
            } catch (KeeperException.NoNodeException gone) {
                continue;
            }
            if (owner.length != 4) {
                return false; // not ours to judge
            }
            if (Long.parseLong(owner[3]) < System.currentTimeMillis()) {
                // Its holder's lease ran out (lockAtMostFor, a ttl): its holder stopped then.
                logger.info("cxc: deleting {}, whose lease ran out", path);
                deleteQuietly(path);
                continue;
            }
            if (!owner[0].equals(settings.hostName())) {
                return false; // another host's holder (or a concurrent try)
            }
            long holder = Long.parseLong(owner[1]);
            long holderStart = Long.parseLong(owner[2]);
            if (holder == pid && holderStart == startTime) {
                // This process's own node of a lease it lost while the ensemble was unreachable:
                // its deletion failed then, and the session outlived the outage.
                logger.info("cxc: deleting {}, left by this process's lost lease", path);
            } else if (ProcessProbe.status(holder, holderStart) == ProcessStatus.DEAD) {
                logger.info("cxc: deleting {} of dead host-mate {}", path, holder);
            } else {
                return false;
            }
            deleteQuietly(path);
        }
        return true;
    }

    /**
     * A lock node's content: host, PID, start time and the lease's end in wall-clock millis, the
     * only clock other hosts share (a skew of a few ms moves it; the token still fences).
     */
    private byte[] owner(Duration atMost) {
        long untilMillis = System.currentTimeMillis() + atMost.toMillis();
        return (settings.hostName() + " " + pid + " " + startTime + " " + untilMillis)
                .getBytes(StandardCharsets.UTF_8);
    }

    private static long sequence(String node) {
        return Long.parseLong(node.substring(node.length() - 10));
    }

    /** A lease name as one znode path element: URL-encoded, behind a letter ("." is not one). */
    static String element(String name) {
        return "n" + URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    /** Deletes a node now, or at a later sweep once the ensemble answers again. */
    private void deleteQuietly(String path) {
        if (!deleteNow(path)) {
            undeleted.add(path);
        }
    }

    private boolean deleteNow(String path) {
        try {
            client.delete().forPath(path);
            return true;
        } catch (KeeperException.NoNodeException gone) {
            return true;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            logger.debug("cxc: cannot delete {} now: {}", path, e.toString());
            return false;
        }
    }

    /**
     * Retries the deletions that failed while the ensemble was unreachable. A session that outlives
     * the outage keeps its nodes, and another host would see such a node as a live holder's until
     * this process's session ends.
     */
    private void retryDeletions() {
        if (undeleted.isEmpty() || !client.getZookeeperClient().isConnected()) {
            return;
        }
        undeleted.removeIf(this::deleteNow);
    }

    /**
     * Whether {@code lease} still holds: not released, its host-local lease live, and no connection
     * loss since it was taken.
     */
    @Override
    public boolean isHeld(LeaseBackend.Held lease) {
        Held held = ours(lease);
        return !held.released.get() && held.epoch == epoch && leases.isHeld(held.local);
    }

    /** Extends the host-local bound; false if the lease is no longer held. */
    @Override
    public boolean extend(LeaseBackend.Held lease, Duration atMost) {
        Held held = ours(lease);
        if (!isHeld(held) || !leases.extend(held.local, atMost)) {
            return false;
        }
        try {
            client.setData().forPath(held.node, owner(atMost));
            return true;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            // Other hosts would judge it by its old end: not extended across hosts.
            logger.debug("cxc: cannot extend {} on ZooKeeper: {}", held, e.toString());
            return false;
        }
    }

    /**
     * Releases {@code lease}: the lock node first, then the host-local lease (so a host-mate that
     * takes it next never finds a live holder's node). Answers whether it was still held.
     */
    @Override
    public boolean release(LeaseBackend.Held lease) {
        Held held = ours(lease);
        boolean was = isHeld(held);
        if (held.released.compareAndSet(false, true)) {
            deleteQuietly(held.node);
            leases.release(held.local);
        }
        return was;
    }

    /**
     * Keeps the name until {@code notBeforeNanos}: the host-local lease lingers (even if this
     * process dies) and the lock node is deleted then. If this process dies before, its host-mates
     * end its session and the node goes early: across hosts, {@code lockAtLeastFor} holds only
     * while its holder lives.
     */
    @Override
    public boolean releaseNoEarlierThan(LeaseBackend.Held lease, long notBeforeNanos) {
        Held held = ours(lease);
        long delay = notBeforeNanos - System.nanoTime();
        if (delay <= 0) {
            return release(held);
        }
        boolean was = isHeld(held);
        if (held.released.compareAndSet(false, true)) {
            leases.releaseNoEarlierThan(held.local, notBeforeNanos);
            sweeper.schedule(() -> deleteQuietly(held.node), delay, TimeUnit.NANOSECONDS);
        }
        return was;
    }

    /**
     * Waits on the host-local table's doorbell: a host-mate's release rings it; a release on
     * another host does not, so a waiter sees it at its next look. A waiter that names its lease
     * ({@link #awaitRelease(String, BooleanSupplier, Duration)}) is woken by ZooKeeper instead.
     */
    @Override
    public boolean awaitRelease(BooleanSupplier look, Duration timeout) {
        return leases.awaitRelease(look, timeout);
    }

    /**
     * Waits for {@code name}: while a host-mate holds it, on the host-local doorbell (a dead
     * host-mate rings nothing: the caller's short timeouts bound that); while another host holds
     * it, on a ZooKeeper watch of the name's lock nodes, looking again only when they change (or
     * after {@link NameWatches#SAFETY_LOOK}), so a blocked waiter costs ZooKeeper no write.
     */
    @Override
    public boolean awaitRelease(String name, BooleanSupplier look, Duration timeout) {
        if (leases.holder(name).isPresent() || !client.getZookeeperClient().isConnected()) {
            return leases.awaitRelease(look, timeout);
        }
        return watches.await(ZKPaths.makePath(settings.path(), element(name)), look, timeout);
    }

    private static Held ours(LeaseBackend.Held lease) {
        if (lease instanceof Held held) {
            return held;
        }
        throw new IllegalArgumentException(
                lease + " was not taken through GlobalLeases: pass back what tryAcquire returned");
    }

    @Override
    public String toString() {
        return "leases across hosts at " + settings.path() + " over " + leases.file();
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
        client.close(); // the session ends: its nodes go
        reaper.forget();
    }
}
