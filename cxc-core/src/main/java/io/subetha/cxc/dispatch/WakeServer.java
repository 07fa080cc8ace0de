package io.subetha.cxc.dispatch;

import io.subetha.cxc.wake.WakeSocketFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The owner's side of a pass registry's dispatcher wake-up: a Unix domain socket server, one per
 * registry handle that registers, through which callers wake its dispatcher (callers themselves are
 * woken through the file's callers' doorbell). It carries only "look now": every request stays in
 * the mapped file, and every wait on it is bounded by its registry handle's ticker, so a poke lost,
 * refused or never sent costs at most two of its looks.
 *
 * <p><b>Naming.</b> As every wake socket's ({@link WakeSocketFiles}): its {@linkplain #address
 * address}, published in the file, names it, so a caller finds the socket from the file alone.
 * Closing deletes the socket; starting a server deletes the sockets of processes {@code /proc}
 * shows dead (PID and start time), so a killed owner's socket is gone at the next owner's start.
 *
 * <p><b>Connections.</b> A caller's registry handle keeps a pool of lines to the server ({@link
 * WakeConnection}), usually one; every byte on a line is a poke: it only makes the wait return.
 *
 * <p>One dispatcher thread at a time {@linkplain #tryLock holds} the selector and blocks in it;
 * {@link #wakeup} may be called from any thread. The blocked dispatcher's wait is one untimed
 * {@code epoll_wait}: a timed one arms a kernel timer at every block and cancels it at every wake,
 * which on an idle virtual machine reprograms the CPU's timer (a trap to the hypervisor) twice per
 * round trip. What bounds the wait is the registry's ticker, which {@linkplain #wakeup wakes} it
 * when it finds a request the dispatcher was not poked for. It does not read the pokes that woke it
 * until it is about to block again ({@link #drain}): the read is then off the round trip, done
 * while the caller it answered wakes up. Until drained, a poked connection keeps the selector
 * ready, so the dispatcher drains before it announces itself and looks at its mailboxes for the
 * last time: a poke that arrives after the drain wakes the next wait.
 *
 * <p><b>One connection: a blocking read.</b> Once {@link #SOLO_AFTER} waits in a row found exactly
 * one connection, the dispatcher takes it off the selector into blocking mode and waits in a plain
 * {@code read} of it, the system call a Unix socket server waits in: measured here, a round trip
 * whose dispatcher is woken out of {@code epoll_wait} costs 7–10 µs more than one woken out of a
 * blocking read by the same write, and both sides' writes take the slow path. The read returns the
 * pokes that woke it, so that wait has nothing to drain. What only the selector sees is then unseen
 * (a second caller's connection and its pokes); the second caller's request is found by the ticker
 * like any request the dispatcher was not poked for, and {@link #wakeup} ends a blocking read the
 * only way there is, by closing the connection (its caller's next poke fails and it sends it again
 * on a fresh one, which the selector takes in). A second caller's first call so costs up to two
 * ticks, once: two connections keep the selector until one of them is gone for another run of
 * waits.
 */
final class WakeServer implements AutoCloseable {

    /** Waits in a row with one connection before {@link #await} reads it in blocking mode. */
    static final int SOLO_AFTER = 64;

    final long address;
    final Path socket;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final ReentrantLock selecting = new ReentrantLock();
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(512);

    /** Connections that poked since the last {@link #drain}: with the selector held. */
    private final List<SelectionKey> poked = new ArrayList<>();

    /**
     * The one connection, taken off the selector into blocking mode, that {@link #await} reads
     * while it is the only one; null in selector mode. With the selector held.
     */
    private volatile @Nullable SocketChannel solo;

    /** {@link #solo} while a dispatcher is blocked reading it: what {@link #wakeup} closes. */
    private volatile @Nullable SocketChannel soloBlocked;

    /** A {@link #wakeup} not yet seen by a solo wait. */
    private volatile boolean wakePending;

    /** Consecutive waits that found exactly one connection: with the selector held. */
    private int lonelyWaits;

    private final Consumer<SelectionKey> onReady = this::ready;

    private volatile boolean closed;

    private WakeServer(long address, Path socket, ServerSocketChannel server, Selector selector) {
        this.address = address;
        this.socket = socket;
        this.server = server;
        this.selector = selector;
    }

    /** The directory of the wake sockets beside {@code file}. */
    static Path directory(Path file) {
        return WakeSocketFiles.directory(file);
    }

    /** The socket an address names in {@code dir}; null if the address is malformed. */
    static @Nullable Path socketOf(Path dir, long address) {
        return WakeSocketFiles.socketOf(dir, address);
    }

    /**
     * Starts a server for this process, or returns null where there is none to be had (no Unix
     * sockets, a path too long for one, a wake directory not owner-only): its registry's callers
     * and dispatchers then poll.
     */
    static @Nullable WakeServer start(Path dir, long pid, long startTime) {
        if (WakeSocketFiles.address(pid, startTime, 0) == 0) {
            return null;
        }
        try {
            WakeSocketFiles.prepare(dir);
            for (int attempt = 0; attempt < WakeSocketFiles.MAX_SEQ; attempt++) {
                long address =
                        WakeSocketFiles.address(pid, startTime, WakeSocketFiles.nextSequence());
                Path socket = Objects.requireNonNull(WakeSocketFiles.socketOf(dir, address));
                if (Files.exists(socket)) {
                    continue; // another socket of this process
                }
                ServerSocketChannel server;
                try {
                    server = WakeSocketFiles.bind(socket);
                } catch (IOException e) {
                    if (Files.exists(socket)) {
                        continue;
                    }
                    return null;
                }
                try {
                    Selector selector = Selector.open();
                    server.register(selector, SelectionKey.OP_ACCEPT);
                    return new WakeServer(address, socket, server, selector);
                } catch (IOException | RuntimeException e) {
                    server.close();
                    Files.deleteIfExists(socket);
                    return null;
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Whether a dispatcher's wait is a blocking read of the only connection (for tests). */
    boolean waitsSolo() {
        return solo != null;
    }

    /** Whether this thread now holds the selector (and may {@link #await} in it). */
    boolean tryLock() {
        return !closed && selecting.tryLock();
    }

    void unlock() {
        selecting.unlock();
    }

    /**
     * Blocks until a connection arrives, a caller pokes, or {@link #wakeup} is called; takes in new
     * connections, and leaves pokes for the next {@link #drain}. With the selector held.
     */
    void await() {
        SocketChannel one = solo != null ? solo : goSolo();
        if (one != null) {
            awaitSolo(one);
            return;
        }
        wakePending = false; // the selector's own wake-up covers it
        try {
            // The action form: no selected-key set to fill, iterate and clear on the way back.
            selector.select(onReady);
        } catch (IOException | RuntimeException e) {
            // A broken selector: the caller's next wait polls.
        }
    }

    /**
     * Blocks in a plain read of the only connection, as a Unix socket server does: on this host an
     * {@code epoll_wait} woken by a poke costs a round trip several microseconds more than a
     * blocking read woken by the same write. The read returns the pokes that woke it, so there is
     * nothing to drain. What else must end the wait ({@link #wakeup}: a request the dispatcher was
     * not poked for, such as a new caller's, whose connection only the selector takes in; a pass
     * taken; closing) closes the connection; its caller reconnects at its next poke.
     */
    private void awaitSolo(SocketChannel one) {
        soloBlocked = one;
        try {
            if (wakePending) {
                wakePending = false;
                return;
            }
            scratch.clear();
            if (one.read(scratch) >= 0) {
                return;
            }
        } catch (IOException e) {
            // closed by wakeup() or close(), or broken: back to the selector
        } finally {
            soloBlocked = null;
        }
        solo = null;
        lonelyWaits = 0;
        dropSolo(one);
    }

    /**
     * Takes the only connection off the selector into blocking mode once a run of waits found it
     * alone ({@link #SOLO_AFTER}: a connection that comes and goes beside another keeps the
     * selector), taking in first what has arrived; null to stay with the selector.
     */
    private @Nullable SocketChannel goSolo() {
        Set<SelectionKey> keys = selector.keys();
        if (keys.size() != 2 || !poked.isEmpty()) {
            lonelyWaits = 0;
            return null;
        }
        if (++lonelyWaits < SOLO_AFTER) {
            return null;
        }
        SelectionKey key = null;
        for (SelectionKey k : keys) {
            if (k.channel() != server) {
                key = k;
            }
        }
        if (key == null) {
            return null;
        }
        SocketChannel channel = (SocketChannel) key.channel();
        try {
            key.cancel();
            selector.selectNow(onReady); // deregisters it; takes in a connection just arrived
            if (selector.keys().size() != 1 || !poked.isEmpty()) {
                // another connection came, or a poke was read meanwhile: stay with the selector
                lonelyWaits = 0;
                reregister(channel);
                return null;
            }
            channel.configureBlocking(true);
        } catch (IOException | RuntimeException e) {
            lonelyWaits = 0;
            dropSolo(channel);
            return null;
        }
        solo = channel;
        return channel;
    }

    private void reregister(SocketChannel channel) {
        try {
            channel.register(selector, SelectionKey.OP_READ);
        } catch (IOException | RuntimeException e) {
            dropSolo(channel);
        }
    }

    /** Closes a connection taken off the selector. */
    private void dropSolo(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing
        }
    }

    /** As {@link #await()} without blocking: takes in what has arrived. With the selector held. */
    void takeIn() {
        try {
            selector.selectNow(onReady);
        } catch (IOException | RuntimeException e) {
            // A broken selector: the caller's next wait polls.
        }
    }

    private void ready(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        if (key.isAcceptable()) {
            try {
                accept();
            } catch (IOException e) {
                // the caller's connect failed: it polls, or connects again at its next block
            }
        } else if (key.isReadable()) {
            poked.add(key);
        }
    }

    /**
     * Reads the pokes of the connections the last waits returned for, so that the next wait blocks.
     * With the selector held.
     */
    void drain() {
        for (SelectionKey key : poked) {
            if (key.isValid()) {
                read(key);
            }
        }
        poked.clear();
    }

    private void accept() throws IOException {
        SocketChannel channel;
        while ((channel = server.accept()) != null) {
            channel.configureBlocking(false);
            // Its first poke usually came with the connect: read it now (this wait returns).
            read(channel.register(selector, SelectionKey.OP_READ));
        }
    }

    private void read(SelectionKey key) {
        SocketChannel channel = (SocketChannel) key.channel();
        try {
            int n;
            do {
                scratch.clear();
                n = channel.read(scratch);
            } while (n == scratch.capacity()); // a short read: no more pokes
            if (n < 0) {
                drop(key);
            }
        } catch (IOException e) {
            drop(key);
        }
    }

    private static void drop(SelectionKey key) {
        key.cancel();
        try {
            key.channel().close();
        } catch (IOException e) {
            // closing
        }
    }

    /**
     * Makes a blocked {@link #await} return now, or the next one at once if none is blocked (to
     * stop its dispatcher, or to make it look at a request it was not poked for).
     */
    void wakeup() {
        wakePending = true;
        SocketChannel blocked = soloBlocked;
        if (blocked != null) {
            try {
                blocked.close(); // the only way to end a blocking read; its caller reconnects
            } catch (IOException e) {
                // closing
            }
        }
        selector.wakeup();
    }

    /** Closes the server and every connection, and deletes the socket. */
    @Override
    public void close() {
        closed = true;
        try {
            for (SelectionKey key : selector.keys()) {
                key.channel().close(); // the server's among them
            }
        } catch (IOException | RuntimeException e) {
            // closing; a wait that races it only fails
        }
        try {
            selector.close();
        } catch (IOException e) {
            // closing
        }
        try {
            server.close();
        } catch (IOException e) {
            // closing
        }
        SocketChannel one = solo;
        if (one != null) {
            dropSolo(one); // off the selector: closed here, which also ends a blocking read
        }
        WakeSocketFiles.delete(socket);
    }
}
