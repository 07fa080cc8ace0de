package io.subetha.cxc.zookeeper;

import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tier 2 of leadership across hosts: the host leader (tier 1, the host-local {@link
 * SharedLeaderElection}) takes part in a Curator {@link LeaderLatch} on ZooKeeper; the <b>global
 * leader</b> is the host leader that holds the latch. Only host leaders open a ZooKeeper session,
 * so sessions grow with hosts, not processes.
 *
 * <p>What it adds to a plain {@code LeaderLatch}:
 *
 * <ul>
 *   <li><b>Process-crash failover in milliseconds.</b> The host leader records its session in the
 *       host-local {@link HostRecord} before it creates a latch node. When it dies, a host-mate
 *       becomes host leader (the host election notices a dead PID within a tick), finds the
 *       recorded process dead in {@code /proc} (PID and start time), and deletes every latch node
 *       that session owns: the next candidate, on any host, holds the latch at once instead of
 *       after the session timeout. Nodes of a process that {@code /proc} shows alive (or cannot
 *       tell) are never deleted; each deletion is logged in {@link HostRecord#deletionsLog()}.
 *   <li><b>A deleted node ends leadership.</b> {@code LeaderLatch} does not watch its own node: if
 *       another client deletes it, the latch still answers {@code hasLeadership() == true} while
 *       the next candidate leads. The leader here watches its node and checks it every tick; the
 *       moment it is gone it stops leading and joins again with a new node.
 *   <li><b>Suspended means not leading.</b> On {@link ConnectionState#SUSPENDED} (and {@code LOST})
 *       it stops leading at once, not after the session is declared lost; it leads again only after
 *       the latch re-acquires on a node that is confirmed to be its own.
 *   <li><b>A fencing token across hosts.</b> The term is the latch node's sequence number plus one.
 *       The leader is always the lowest node, nodes are never renumbered, and new nodes only come
 *       later, so every global handover strictly raises it; it fits a {@link
 *       io.subetha.cxc.election.FencedLedger} term. The latch's parent znode is created persistent
 *       (not a container), so its sequence survives a time with no candidate.
 * </ul>
 *
 * <p>Threads: {@link #onTick()} is called on the host election's ticker thread after each round and
 * never blocks on ZooKeeper; ZooKeeper work runs on this tier's own thread; Curator's event thread
 * revokes leadership directly. {@link #termIfLeader()} and {@link #isLeader()} are safe from any
 * thread and allocation-free: two volatile reads.
 */
public final class GlobalTier implements AutoCloseable {

    /** {@link #termIfLeader()} when this process does not lead globally. */
    public static final long NOT_LEADER = -1;

    private static final Logger logger = LoggerFactory.getLogger(GlobalTier.class);

    /** Told of global leadership edges, in order, on the thread that calls {@link #onTick()}. */
    public interface Listener {
        void gained(long term);

        void lost(long term);
    }

    /** Who leads globally, as the latch's lowest node says. */
    public record LeaderView(long pid, @Nullable String host, long term) {
        static final LeaderView NONE = new LeaderView(0, null, 0);
    }

    private record Transition(boolean gained, long term) {}

    /** A predecessor on this host whose session may still own latch nodes. */
    private record Predecessor(long pid, long startTime, long session, long sinceNanos) {}

    private final SharedLeaderElection election;
    private final long pid;
    private final long startTime;
    private final GlobalTierSettings settings;
    private final HostRecord record;
    private final String participantId;
    private final Listener listener;
    private final ExecutorService worker;
    private final AtomicBoolean reconcileQueued = new AtomicBoolean();
    private final Runnable reconcile = this::reconcile;
    private final ConcurrentLinkedQueue<Transition> transitions = new ConcurrentLinkedQueue<>();
    private final Watcher nodeWatcher = this::nodeEvent;
    private final Watcher childrenWatcher = this::childrenEvent;

    /** The term this process leads under globally, or {@link #NOT_LEADER}. */
    private volatile long term = NOT_LEADER;

    /** Raised by every event that may end leadership: a grant decided before it is refused. */
    private long generation;

    private volatile @Nullable String leadingNode;
    private volatile @Nullable ConnectionState connection;
    private volatile boolean sessionOpen;
    private volatile LeaderView view = LeaderView.NONE;
    private volatile @Nullable String problem;
    private volatile boolean closed;
    private volatile long sessionId;
    private volatile @Nullable String ownNode;

    // Worker-thread state.
    private volatile @Nullable CuratorFramework client;
    private @Nullable LeaderLatch latch;
    private boolean recorded;
    private boolean viewDirty = true;
    private @Nullable Predecessor predecessor;
    private boolean predecessorRead;

    /**
     * @param pid this process's PID, normally {@link Pids#current()}
     * @param listener told of global leadership edges on the ticker thread
     */
    public GlobalTier(
            SharedLeaderElection election,
            long pid,
            GlobalTierSettings settings,
            Listener listener) {
        this.election = Objects.requireNonNull(election, "election");
        this.pid = Pids.requireValid(pid);
        this.startTime = ProcessProbe.startTime(pid);
        this.settings = Objects.requireNonNull(settings, "settings");
        this.record = new HostRecord(settings.hostRecord(), settings.deletionsLog());
        this.participantId = pid + "@" + settings.hostName();
        this.listener = Objects.requireNonNull(listener, "listener");
        this.worker =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "cxc-zookeeper");
                            t.setDaemon(true);
                            return t;
                        });
        // A process that becomes host leader must reach ZooKeeper at once to delete a dead
        // predecessor's node: load the client's classes now, off the ticker (measured: ~200 ms
        // of class loading and TLS defaults on first use, most of a process-crash failover).
        worker.execute(GlobalTier::warmUp);
    }

    private static void warmUp() {
        String[] classes = {
            "org.apache.zookeeper.ZooKeeper",
            "org.apache.zookeeper.ClientCnxn",
            "org.apache.zookeeper.ClientCnxnSocketNIO",
            "org.apache.zookeeper.common.X509Util",
            "org.apache.zookeeper.client.ZKClientConfig",
            "org.apache.curator.framework.imps.CuratorFrameworkImpl",
            "org.apache.curator.framework.recipes.leader.LeaderLatch",
            "org.apache.curator.framework.state.ConnectionStateManager",
        };
        ClassLoader loader = GlobalTier.class.getClassLoader();
        for (String name : classes) {
            try {
                Class.forName(name, true, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                logger.debug("cxc: cannot preload {}", name, e);
            }
        }
        try {
            new org.apache.zookeeper.client.ZKClientConfig();
        } catch (RuntimeException e) {
            logger.debug("cxc: cannot preload the ZooKeeper client configuration", e);
        }
    }

    // ------------------------------------------------------------------------ the fast path

    /** The global term this process leads under, or {@link #NOT_LEADER}. Allocation-free. */
    public long termIfLeader() {
        long t = term;
        return t != NOT_LEADER && election.isLeader(pid) ? t : NOT_LEADER;
    }

    public boolean isLeader() {
        return termIfLeader() != NOT_LEADER;
    }

    // ------------------------------------------------------------------------------ ticking

    /**
     * Called after each round of the host election, on its ticker thread: revokes global leadership
     * at once if this process no longer leads its host, hands ZooKeeper work to this tier's thread,
     * and tells the listener of the edges since the last tick. Never blocks on ZooKeeper.
     */
    public void onTick() {
        if (closed) {
            return;
        }
        boolean hostLeads = election.isLeader(pid);
        if (!hostLeads) {
            revoke("no longer the host leader");
        }
        if (hostLeads || sessionOpen) {
            queueReconcile();
        }
        Transition t;
        while ((t = transitions.poll()) != null) {
            try {
                if (t.gained()) {
                    listener.gained(t.term());
                } else {
                    listener.lost(t.term());
                }
            } catch (RuntimeException e) {
                logger.warn("cxc: a global leadership listener failed", e);
            }
        }
    }

    private void queueReconcile() {
        if (!closed && reconcileQueued.compareAndSet(false, true)) {
            try {
                worker.execute(reconcile);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                reconcileQueued.set(false); // closing
            }
        }
    }

    /** The worker's round: bring the ZooKeeper side in line with the host election. */
    private void reconcile() {
        reconcileQueued.set(false);
        if (closed) {
            return;
        }
        try {
            if (!election.isLeader(pid)) {
                revoke("no longer the host leader");
                if (client != null) {
                    teardown("this process no longer leads its host");
                }
                predecessorRead = false;
                return;
            }
            if (!predecessorRead) {
                readPredecessor();
            }
            if (client == null) {
                open();
                return; // the CONNECTED event queues the next round
            }
            ConnectionState state = connection;
            if (state == ConnectionState.LOST) {
                teardown("the ZooKeeper session was lost");
                return; // the next tick opens a new session
            }
            if (state != ConnectionState.CONNECTED && state != ConnectionState.RECONNECTED) {
                return;
            }
            CuratorFramework c = client;
            long session = c.getZookeeperClient().getZooKeeper().getSessionId();
            if (recorded && session != sessionId) {
                teardown("the ZooKeeper session changed");
                return;
            }
            deleteDeadPredecessorNodes(c);
            if (!recorded) {
                // The session is on record before any latch node exists in it: a host-mate can
                // always find what a dead holder left behind.
                sessionId = session;
                ownNode = null;
                writeRecord();
                recorded = true;
            }
            if (latch == null) {
                join(c);
            }
            String node = latch == null ? null : latch.getOurPath();
            ownNode = node;
            HostRecord.Contents onFile = record.read();
            if (onFile.holderPid() != pid || !Objects.equals(onFile.holderNode(), node)) {
                writeRecord(); // our node is new, or a stale host leader wrote last
            }
            evaluate(c, node);
            if (viewDirty) {
                refreshView(c);
            }
            problem = null;
        } catch (Exception e) {
            problem = e.toString();
            logger.warn("cxc: ZooKeeper round failed; the next tick tries again: {}", e.toString());
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void open() {
        CuratorFramework c = settings.newClient();
        c.getConnectionStateListenable().addListener((cf, s) -> stateChanged(cf, s));
        client = c;
        recorded = false;
        viewDirty = true;
        sessionOpen = true;
        c.start();
    }

    private void stateChanged(CuratorFramework source, ConnectionState state) {
        if (source != client && client != null) {
            return; // an old client's last words
        }
        connection = state;
        logger.info("cxc: ZooKeeper connection {}", state);
        if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
            // At once, not when the session is finally declared lost: meanwhile the server may
            // already have expired it and another host may lead (CURATOR-460 / CURATOR-696).
            revoke("the ZooKeeper connection is " + state);
        }
        viewDirty = true;
        queueReconcile();
    }

    private void readPredecessor() {
        HostRecord.Contents previous = record.read();
        predecessorRead = true;
        if (previous.holderPid() != 0
                && previous.holderPid() != pid
                && previous.holderSession() != 0) {
            predecessor =
                    new Predecessor(
                            previous.holderPid(),
                            previous.holderStartTime(),
                            previous.holderSession(),
                            System.nanoTime());
        }
    }

    /**
     * Deletes the latch nodes of the host's previous session holder if {@code /proc} shows it dead.
     * Checked every round while it may still own nodes, so a holder that was frozen when this
     * process took over and is killed later is cleaned up the moment it dies.
     */
    private void deleteDeadPredecessorNodes(CuratorFramework c) throws Exception {
        Predecessor p = predecessor;
        if (p == null) {
            return;
        }
        if (System.nanoTime() - p.sinceNanos() > 2 * settings.sessionTimeout().toNanos()) {
            predecessor = null; // its session has long expired on its own
            return;
        }
        ProcessStatus status = ProcessProbe.status(p.pid(), p.startTime());
        if (status != ProcessStatus.DEAD) {
            return; // alive, or cannot tell: only its session's expiry may end it
        }
        List<String> children;
        try {
            children = c.getChildren().forPath(settings.latchPath());
        } catch (KeeperException.NoNodeException e) {
            children = List.of();
        }
        for (String child : children) {
            String path = ZKPaths.makePath(settings.latchPath(), child);
            Stat stat = c.checkExists().forPath(path);
            if (stat == null || stat.getEphemeralOwner() != p.session()) {
                continue;
            }
            try {
                c.delete().withVersion(stat.getVersion()).forPath(path);
            } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
                continue; // gone already (its session expired) or not the node we judged
            }
            record.logDeletion(p.pid(), p.startTime(), status.name(), p.session(), path, pid);
            logger.info(
                    "cxc: deleted latch node {} of pid {} (dead per /proc), session 0x{}",
                    path,
                    p.pid(),
                    Long.toHexString(p.session()));
        }
        predecessor = null;
    }

    private void join(CuratorFramework c) throws Exception {
        // Persistent, not the container LeaderLatch would create: a container is removed when it
        // has no children, and its successor's sequence numbers (our terms) would start again at 0.
        try {
            c.create()
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.PERSISTENT)
                    .forPath(settings.latchPath());
        } catch (KeeperException.NodeExistsException e) {
            // the usual case
        }
        LeaderLatch l = new LeaderLatch(c, settings.latchPath(), participantId);
        l.addListener(
                new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        queueReconcile();
                    }

                    @Override
                    public void notLeader() {
                        revoke("the latch says so");
                        queueReconcile();
                    }
                });
        latch = l;
        l.start();
    }

    /** Grants or keeps global leadership from the latch, confirming the node is ours. */
    private void evaluate(CuratorFramework c, @Nullable String node) throws Exception {
        LeaderLatch l = latch;
        long gen;
        synchronized (this) {
            gen = generation;
        }
        if (l == null || !l.hasLeadership() || node == null) {
            revoke("the latch is not ours");
            return;
        }
        String leading = leadingNode;
        if (term != NOT_LEADER && node.equals(leading)) {
            // Leading: check the node is still there every tick, beside the watch.
            c.checkExists()
                    .usingWatcher(nodeWatcher)
                    .inBackground(
                            (cf, event) -> {
                                if (event.getStat() == null) {
                                    nodeGone(node);
                                }
                            })
                    .forPath(node);
            return;
        }
        Stat stat = c.checkExists().usingWatcher(nodeWatcher).forPath(node);
        if (stat == null || stat.getEphemeralOwner() != sessionId) {
            resetLatch("our latch node " + node + " is gone");
            return;
        }
        long sequence = sequenceOf(node);
        if (sequence < 0) {
            return;
        }
        grant(node, sequence + 1, gen);
    }

    private void nodeEvent(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.NodeDeleted && event.getPath() != null) {
            nodeGone(event.getPath());
        } else {
            queueReconcile();
        }
    }

    private void nodeGone(String node) {
        if (node.equals(leadingNode) || node.equals(ownNode)) {
            revoke("our latch node " + node + " was deleted");
            queueReconcile(); // joins again with a new node
        }
    }

    private void childrenEvent(WatchedEvent event) {
        viewDirty = true;
        queueReconcile();
    }

    private void resetLatch(String why) throws Exception {
        revoke(why);
        LeaderLatch l = latch;
        latch = null;
        ownNode = null;
        if (l != null) {
            l.close();
        }
        logger.info("cxc: {}; joining the latch again", why);
    }

    /** Reads who leads globally from the latch's lowest node; writes it to the host record. */
    private void refreshView(CuratorFramework c) throws Exception {
        viewDirty = false;
        List<String> children;
        try {
            children = c.getChildren().usingWatcher(childrenWatcher).forPath(settings.latchPath());
        } catch (KeeperException.NoNodeException e) {
            viewDirty = true; // no watch was set: look again next round
            children = List.of();
        }
        List<String> sorted = new ArrayList<>(children);
        sorted.removeIf(n -> sequenceOf(n) < 0);
        sorted.sort(Comparator.comparingLong(GlobalTier::sequenceOf));
        LeaderView next = LeaderView.NONE;
        for (String child : sorted) {
            byte[] data;
            try {
                data = c.getData().forPath(ZKPaths.makePath(settings.latchPath(), child));
            } catch (KeeperException.NoNodeException e) {
                continue;
            }
            String id = new String(data, StandardCharsets.UTF_8);
            int at = id.indexOf('@');
            long leaderPid = 0;
            try {
                leaderPid = Long.parseLong(at < 0 ? id : id.substring(0, at));
            } catch (NumberFormatException ignored) {
                // not one of ours: shown with PID 0
            }
            next =
                    new LeaderView(
                            leaderPid, at < 0 ? null : id.substring(at + 1), sequenceOf(child) + 1);
            break;
        }
        if (!next.equals(view)) {
            view = next;
            writeRecord();
        }
    }

    private void writeRecord() {
        LeaderView v = view;
        record.write(
                new HostRecord.Contents(
                        pid, startTime, sessionId, ownNode, v.pid(), v.host(), v.term()));
    }

    /** The latch node's sequence number, or -1 if the name carries none. */
    static long sequenceOf(String node) {
        String name = node.substring(node.lastIndexOf('/') + 1);
        int dash = name.lastIndexOf('-');
        try {
            return Long.parseLong(name.substring(dash + 1));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return -1;
        }
    }

    // ------------------------------------------------------------------ grant and revoke

    private synchronized void grant(String node, long newTerm, long gen) {
        ConnectionState state = connection;
        boolean connected =
                state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED;
        if (gen != generation || closed || !connected || !election.isLeader(pid)) {
            return; // something revoked while we checked: decide again next round
        }
        if (term == newTerm) {
            return;
        }
        if (term != NOT_LEADER) {
            transitions.add(new Transition(false, term));
        }
        leadingNode = node;
        term = newTerm;
        transitions.add(new Transition(true, newTerm));
        logger.info("cxc: pid {} leads globally, term {} (node {})", pid, newTerm, node);
    }

    private synchronized void revoke(String why) {
        generation++;
        long was = term;
        if (was == NOT_LEADER) {
            return;
        }
        term = NOT_LEADER;
        leadingNode = null;
        transitions.add(new Transition(false, was));
        logger.info("cxc: pid {} no longer leads globally (term {}): {}", pid, was, why);
    }

    private void teardown(String why) {
        revoke(why);
        LeaderLatch l = latch;
        CuratorFramework c = client;
        latch = null;
        client = null;
        ownNode = null;
        sessionOpen = false;
        connection = null;
        recorded = false;
        view = LeaderView.NONE;
        try {
            if (l != null) {
                l.close();
            }
        } catch (Exception e) {
            logger.debug("cxc: closing the latch failed", e);
        }
        if (c != null) {
            c.close();
        }
    }

    // ------------------------------------------------------------------------------ views

    public long pid() {
        return pid;
    }

    public GlobalTierSettings settings() {
        return settings;
    }

    public HostRecord hostRecord() {
        return record;
    }

    /** The connection state of this process's session; null when it holds none. */
    public @Nullable ConnectionState connectionState() {
        return sessionOpen ? connection : null;
    }

    /** Whether this process holds a ZooKeeper session (only the host leader does). */
    public boolean holdsSession() {
        return sessionOpen;
    }

    /** This process's ZooKeeper session id, 0 when it holds none. */
    public long sessionId() {
        return sessionOpen ? sessionId : 0;
    }

    /** This process's latch node, if it has one. */
    public @Nullable String ownNode() {
        return ownNode;
    }

    /** Why the last ZooKeeper round failed, or null. */
    public @Nullable String problem() {
        return problem;
    }

    /**
     * Who leads globally: from the latch when this process holds the session, else from the host
     * record its host leader keeps.
     */
    public LeaderView globalLeader() {
        if (sessionOpen) {
            return view;
        }
        HostRecord.Contents c = record.read();
        return new LeaderView(c.leaderPid(), c.leaderHost(), c.leaderTerm());
    }

    /** Stops leading, closes the latch (its node is deleted) and the session. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        revoke("closed");
        closed = true;
        try {
            worker.execute(() -> teardown("closed"));
        } catch (java.util.concurrent.RejectedExecutionException ignored) {
            // already shut down
        }
        worker.shutdown();
        try {
            if (!worker.awaitTermination(
                    settings.connectionTimeout().toMillis() + 2_000, TimeUnit.MILLISECONDS)) {
                worker.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            worker.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return "GlobalTier[pid="
                + pid
                + ", term="
                + term
                + ", latch="
                + settings.latchPath()
                + ", connection="
                + connectionState()
                + "]";
    }
}
