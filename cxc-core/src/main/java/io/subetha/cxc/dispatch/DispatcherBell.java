package io.subetha.cxc.dispatch;

import io.subetha.cxc.mmf.AtomicBuffer;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;

/**
 * A registry handle's dispatcher bell: how its dispatcher sleeps until a caller of any process has
 * a request for it, and how a caller wakes it. (Callers wait for their answers on the file's
 * callers' doorbell, {@link io.subetha.cxc.wake.Doorbell}; what stays here is the dispatcher's own,
 * for its speed: an untimed wait that becomes a blocking read of its only caller's connection.)
 *
 * <ol>
 *   <li><b>Announce, then look, then sleep.</b> The dispatcher about to sleep writes its socket's
 *       address into each entry it serves by CAS ({@link #announce}), looks at its mailboxes once
 *       more, and only then sleeps on this handle's socket ({@link #sleep}).
 *   <li><b>Publish, then ring.</b> A caller, after the CAS that publishes its request, reads the
 *       entry's word; if the dispatcher is announced it takes the announcement by CAS ({@link
 *       #takeAnnouncement}: one ring per announcement) and rings it through a pooled line ({@link
 *       #ringAt}).
 * </ol>
 *
 * Both sides' steps are volatile or CAS, so either the dispatcher's last look sees the request or
 * the caller sees the announcement. A lost ring (a dead or closed socket, no Unix sockets here) is
 * not a lost wake-up: the sleep is bounded by a safety look that its {@link PassTicker} runs, and
 * the request is in the file.
 *
 * <p>The sockets ({@link WakeServer}) live in one owner-only directory, named by their owner's PID
 * and start time, so a dead owner's socket is deleted by the next one to start. What the bell needs
 * is given to its constructor: the buffer its announcements live in, that directory, and the owning
 * process's identity.
 */
final class DispatcherBell implements AutoCloseable {

    private final AtomicBuffer buffer;
    private final Path directory;
    private final long pid;
    private final long startTime;

    /** This handle's socket, started by {@link #listen}; null before, or where none can be had. */
    private volatile @Nullable WakeServer server;

    private boolean listenTried;

    /** Idle lines to other processes' sockets, by wake address. */
    private final Map<Long, ConcurrentLinkedQueue<WakeConnection>> lines =
            new ConcurrentHashMap<>();

    /** Wake addresses a line failed to: their waiters poll. */
    private final Set<Long> unreachable = ConcurrentHashMap.newKeySet();

    private volatile boolean lending = true;

    /**
     * @param buffer where announcements are written
     * @param directory where the sockets live ({@link WakeServer#directory} beside a file)
     * @param pid the owning process
     * @param startTime its start time, as {@code /proc} tells it
     */
    DispatcherBell(AtomicBuffer buffer, Path directory, long pid, long startTime) {
        this.buffer = buffer;
        this.directory = directory;
        this.pid = pid;
        this.startTime = startTime;
    }

    // ------------------------------------------------------------------------- announcements

    /**
     * Announces {@code who} (a wake address or a line's token) in the word at {@code offset}.
     *
     * @return whether the word now names {@code who}; false if another CAS moved it meanwhile
     */
    boolean announce(int offset, long who) {
        long current = buffer.getLongVolatile(offset);
        return current == who || buffer.compareAndSetLong(offset, current, who);
    }

    /** Withdraws the announcement of {@code who}, unless someone took it meanwhile. */
    void withdraw(int offset, long who) {
        buffer.compareAndSetLong(offset, who, 0);
    }

    /** Takes the announcement at {@code offset} by CAS: who to ring, or 0 if none (or lost it). */
    long takeAnnouncement(int offset) {
        long who = buffer.getLongVolatile(offset);
        if (who == 0 || !buffer.compareAndSetLong(offset, who, 0)) {
            return 0;
        }
        return who;
    }

    // ------------------------------------------------------------------------- this handle's

    /** Starts this handle's socket, once; where none can be had, its waiters poll. */
    synchronized void listen() {
        if (listenTried) {
            return;
        }
        listenTried = true;
        server = WakeServer.start(directory, pid, startTime);
    }

    /** This handle's socket's address, as announced and published; 0 if it has none. */
    long address() {
        WakeServer s = server;
        return s == null ? 0 : s.address;
    }

    /** This handle's socket, or null. */
    @Nullable Path socket() {
        WakeServer s = server;
        return s == null ? null : s.socket;
    }

    /** Whether this thread now holds the socket (and may {@link #sleep} on it); false if none. */
    boolean tryHold() {
        WakeServer s = server;
        return s != null && s.tryLock();
    }

    /** Lets go of the socket this thread holds. */
    void letGo() {
        serverHeld().unlock();
    }

    /**
     * Reads the rings that woke the last sleep: before the last look, since a ring drained after it
     * could be lost. With the socket held.
     */
    void drain() {
        serverHeld().drain();
    }

    /** Sleeps until rung, or {@link #wakeSleeper woken}; untimed. With the socket held. */
    void sleep() {
        serverHeld().await();
    }

    /** Wakes the sleep on this handle's socket now, or the next one at once. */
    void wakeSleeper() {
        WakeServer s = server;
        if (s != null) {
            s.wakeup();
        }
    }

    /** Whether the sleep on this handle's socket is a blocking read of its only line (tests). */
    boolean sleepsSolo() {
        WakeServer s = server;
        return s != null && s.waitsSolo();
    }

    private WakeServer serverHeld() {
        WakeServer s = server;
        if (s == null) {
            throw new IllegalStateException("no wake socket is held");
        }
        return s;
    }

    // ----------------------------------------------------------------- other processes' bells

    /**
     * A line to the socket at {@code address}: an idle one, or a new one; null if there is none (no
     * address, a socket gone or unreachable, closing).
     */
    private @Nullable WakeConnection lend(long address) {
        if (address == 0 || unreachable.contains(address) || !lending) {
            return null;
        }
        WakeConnection line =
                lines.computeIfAbsent(address, a -> new ConcurrentLinkedQueue<>()).poll();
        if (line != null) {
            return line;
        }
        Path socket = WakeServer.socketOf(directory, address);
        if (socket == null) {
            unreachable.add(address);
            return null;
        }
        try {
            return WakeConnection.connect(socket, address);
        } catch (ClosedByInterruptException e) {
            return null; // this thread's interrupt, not the socket
        } catch (IOException | RuntimeException e) {
            unreachable.add(address); // gone, or no Unix sockets here: poll
            return null;
        }
    }

    /** Keeps a line for the next waiter; closes it once closing. */
    private void giveBack(WakeConnection line) {
        if (!lending) {
            line.close();
            return;
        }
        lines.computeIfAbsent(line.address, a -> new ConcurrentLinkedQueue<>()).offer(line);
    }

    /**
     * Rings the socket at {@code address} through an idle line (or a new one). A line that fails
     * (its dispatcher closed it to end a blocking read of it, or restarted) is closed and the ring
     * sent once more on a fresh one, which the dispatcher's selector takes in.
     */
    void ringAt(long address) {
        for (int attempt = 0; attempt < 2; attempt++) {
            WakeConnection line = lend(address);
            if (line == null) {
                return;
            }
            try {
                line.poke();
                giveBack(line);
                return;
            } catch (IOException e) {
                line.close();
            }
        }
    }

    /** From now on no line is lent, and every line given back is closed: the handle is closing. */
    void stopLending() {
        lending = false;
    }

    /** Closes this handle's socket (deleting it) and every idle line. */
    @Override
    public void close() {
        lending = false;
        WakeServer s = server;
        if (s != null) {
            s.close();
        }
        for (ConcurrentLinkedQueue<WakeConnection> idle : lines.values()) {
            WakeConnection line;
            while ((line = idle.poll()) != null) {
                line.close();
            }
        }
    }
}
