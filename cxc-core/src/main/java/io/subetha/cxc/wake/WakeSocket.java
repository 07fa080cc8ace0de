package io.subetha.cxc.wake;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One waiter's socket: a Unix domain socket server that its ringers connect to once and write one
 * byte per ring. It carries only "look now": what the waiter waits for is in the mapped file, so a
 * ring lost, refused or never sent costs the waiter one safety look, never its work.
 *
 * <p><b>Naming.</b> As {@link WakeSocketFiles} says: the wake address published in the waiter's
 * slot names it, so a ringer finds the socket from the file alone. Closing deletes the socket;
 * starting one deletes the sockets whose process {@code /proc} shows dead by PID and start time, so
 * a killed waiter's socket is gone at the next waiter's start (and a ringer's connect to it is
 * refused until then).
 *
 * <p>Used by its waiter's thread only, but for {@link #wakeup}, which any thread may call.
 */
final class WakeSocket implements AutoCloseable {

    final Path socket;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(256);
    private final Consumer<SelectionKey> onReady = this::ready;

    private WakeSocket(Path socket, ServerSocketChannel server, Selector selector) {
        this.socket = socket;
        this.server = server;
        this.selector = selector;
    }

    /**
     * Binds the socket {@code address} names in {@code dir}, or returns null where there is none to
     * be had (no Unix sockets, a path too long for one, a directory not ours, the name taken): its
     * waiter then polls.
     */
    static @Nullable WakeSocket bind(Path dir, long address) {
        Path socket = WakeSocketFiles.socketOf(dir, address);
        if (socket == null) {
            return null;
        }
        try {
            WakeSocketFiles.prepare(dir);
            ServerSocketChannel server = WakeSocketFiles.bind(socket);
            try {
                Selector selector = Selector.open();
                server.register(selector, SelectionKey.OP_ACCEPT);
                return new WakeSocket(socket, server, selector);
            } catch (IOException | RuntimeException e) {
                server.close();
                Files.deleteIfExists(socket);
                return null;
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Sleeps until rung, {@linkplain #wakeup woken} or {@code millis} pass; takes in new ringers'
     * connections and reads the rings that arrived, so the next sleep blocks.
     *
     * @return whether a ringer's connect or ring ended it (not the clock, not a {@link #wakeup})
     */
    boolean sleep(long millis) {
        try {
            return selector.select(onReady, Math.max(1, millis)) > 0;
        } catch (IOException | RuntimeException e) {
            // A broken selector: the waiter's next sleep is bounded by its look all the same.
            return false;
        }
    }

    private void ready(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        try {
            if (key.isAcceptable()) {
                SocketChannel channel;
                while ((channel = server.accept()) != null) {
                    channel.configureBlocking(false);
                    SelectionKey added = channel.register(selector, SelectionKey.OP_READ);
                    read(added); // its first ring usually came with the connect
                }
            } else if (key.isReadable()) {
                read(key);
            }
        } catch (IOException | RuntimeException e) {
            // a ringer's connect failed: it rings again through a fresh one
        }
    }

    private void read(SelectionKey key) {
        SocketChannel channel = (SocketChannel) key.channel();
        try {
            int n;
            do {
                scratch.clear();
                n = channel.read(scratch);
            } while (n == scratch.capacity());
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

    /** Ends the current sleep now, or the next one at once: a ring from this very process. */
    void wakeup() {
        selector.wakeup();
    }

    /** Closes the socket and every ringer's connection, and deletes the socket. */
    @Override
    public void close() {
        try {
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
            selector.close();
        } catch (IOException | RuntimeException e) {
            // closing
        }
        try {
            server.close();
        } catch (IOException e) {
            // closing
        }
        WakeSocketFiles.delete(socket);
    }
}
