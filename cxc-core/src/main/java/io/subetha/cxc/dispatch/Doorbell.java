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
 * How a process sleeps until another process has work for it, and wakes it: one handle's end of the
 * wake-up channel over a mapped file. The file stays the data path; the bell carries nothing but
 * "look now".
 *
 * <ol>
 *   <li><b>Announce, then look, then sleep.</b> A waiter about to sleep writes who it is into a
 *       word of the file by CAS ({@link #announce}), looks at the file once more, and only then
 *       sleeps: on this handle's own socket ({@link #sleep}, the listener's side), or on a line to
 *       another process's socket ({@link #lend}, a {@link WakeConnection}).
 *   <li><b>Publish, then ring.</b> A writer, after the CAS that publishes its work, reads the word;
 *       if a waiter is announced it takes the announcement by CAS ({@link #takeAnnouncement}: one
 *       ring per announcement) and rings it: through a line to the announced socket, or through
 *       this handle's socket to the announced line ({@link #ring}).
 * </ol>
 *
 * Both sides' steps are volatile or CAS, so either the waiter's last look sees the work or the
 * writer sees the announcement. A lost ring (a dead or closed socket, a token not yet known to the
 * socket, no Unix sockets here) is not a lost wake-up: whoever sleeps here is bounded by a safety
 * look that someone else runs (its user's ticker), and what it waits for is in the file.
 *
 * <p>The sockets ({@link WakeServer}) live in one owner-only directory, named by their owner's PID
 * and start time, so a dead owner's socket is deleted by the next one to start. What the bell needs
 * is given to its constructor: the buffer its announcements live in, that directory, and the owning
 * process's identity.
 */
final class Doorbell implements AutoCloseable {

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
    Doorbell(AtomicBuffer buffer, Path directory, long pid, long startTime) {
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

    /** Puts back an announcement taken for the wrong waiter, unless a new one was made. */
    void putBack(int offset, long who) {
        buffer.compareAndSetLong(offset, 0, who);
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

    /** Rings the waiter whose line to this handle's socket announced {@code token}. */
    void ring(long token) {
        WakeServer s = server;
        if (s != null) {
            s.poke(token);
        }
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
    @Nullable WakeConnection lend(long address) {
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
    void giveBack(WakeConnection line) {
        if (!lending) {
            line.close();
            return;
        }
        lines.computeIfAbsent(line.address, a -> new ConcurrentLinkedQueue<>()).offer(line);
    }

    /** Rings the socket at {@code address} through an idle line (or a new one). */
    void ringAt(long address) {
        WakeConnection line = lend(address);
        if (line == null) {
            return;
        }
        try {
            line.poke();
            giveBack(line);
        } catch (IOException e) {
            line.close();
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
