package io.subetha.cxc.wake;

import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One waiter's socket: a Unix domain socket server that its ringers connect to once and write one
 * byte per ring. It carries only "look now": what the waiter waits for is in the mapped file, so a
 * ring lost, refused or never sent costs the waiter one safety look, never its work.
 *
 * <p><b>Naming.</b> {@code <file>.wake/<pid>-<start time, hex>-<seq>.sock} beside the primitive's
 * file, in a directory made owner-only ({@code rwx------}) on creation, the socket {@code
 * rw-------}. The {@linkplain #address wake address} published in the waiter's slot names it, so a
 * ringer finds the socket from the file alone. Closing deletes the socket; starting one deletes the
 * sockets whose process {@code /proc} shows dead by PID and start time, so a killed waiter's socket
 * is gone at the next waiter's start (and a ringer's connect to it is refused until then).
 *
 * <p>Used by its waiter's thread only, but for {@link #wakeup}, which any thread may call.
 */
final class WakeSocket implements AutoCloseable {

    static final long PID_MASK = (1L << 22) - 1;
    static final int MAX_SEQ = 1 << 10;
    private static final String SUFFIX = ".sock";
    private static final Set<PosixFilePermission> OWNER_DIR =
            PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_FILE =
            PosixFilePermissions.fromString("rw-------");

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

    /** The directory of the wake sockets beside {@code file}. */
    static Path directory(Path file) {
        return file.resolveSibling(file.getFileName() + ".wake");
    }

    /** The wake address of {@code pid}'s socket number {@code seq}; 0 if the PID does not fit. */
    static long address(long pid, long startTime, long seq) {
        if (pid <= 0 || pid > PID_MASK) {
            return 0;
        }
        return ((startTime & 0xFFFF_FFFFL) << 32) | ((seq & (MAX_SEQ - 1)) << 22) | pid;
    }

    /** The socket an address names in {@code dir}; null if the address is malformed. */
    static @Nullable Path socketOf(Path dir, long address) {
        long pid = address & PID_MASK;
        if (pid == 0) {
            return null;
        }
        return dir.resolve(
                pid
                        + "-"
                        + Long.toHexString(address >>> 32)
                        + "-"
                        + ((address >>> 22) & (MAX_SEQ - 1))
                        + SUFFIX);
    }

    /**
     * Binds the socket {@code address} names in {@code dir}, or returns null where there is none to
     * be had (no Unix sockets, a path too long for one, a directory not ours, the name taken): its
     * waiter then polls.
     */
    static @Nullable WakeSocket bind(Path dir, long address) {
        Path socket = socketOf(dir, address);
        if (socket == null) {
            return null;
        }
        try {
            ownerOnlyDirectory(dir);
            deleteDeadSockets(dir);
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                server.bind(UnixDomainSocketAddress.of(socket));
            } catch (IOException | RuntimeException e) {
                server.close();
                return null;
            }
            try {
                Files.setPosixFilePermissions(socket, OWNER_FILE);
                server.configureBlocking(false);
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

    private static void ownerOnlyDirectory(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_DIR));
        } catch (FileAlreadyExistsException e) {
            if (!Files.getPosixFilePermissions(dir).equals(OWNER_DIR)) {
                Files.setPosixFilePermissions(dir, OWNER_DIR); // fails unless it is ours
            }
        }
    }

    /** Deletes the sockets whose process is dead by PID and start time. */
    static void deleteDeadSockets(Path dir) throws IOException {
        try (DirectoryStream<Path> sockets = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path socket : sockets) {
                String[] parts = socket.getFileName().toString().replace(SUFFIX, "").split("-");
                if (parts.length != 3) {
                    continue;
                }
                try {
                    long pid = Long.parseLong(parts[0]);
                    long startTime = Long.parseUnsignedLong(parts[1], 16);
                    if (ProcessProbe.status(pid, startTime) == ProcessStatus.DEAD) {
                        Files.deleteIfExists(socket);
                    }
                } catch (NumberFormatException | IOException e) {
                    // not ours, or deleted meanwhile
                }
            }
        }
    }

    /**
     * Sleeps until rung, {@linkplain #wakeup woken} or {@code millis} pass; takes in new ringers'
     * connections and reads the rings that arrived, so the next sleep blocks.
     */
    void sleep(long millis) {
        try {
            selector.select(onReady, Math.max(1, millis));
        } catch (IOException | RuntimeException e) {
            // A broken selector: the waiter's next sleep is bounded by its look all the same.
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
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            // the next socket's start deletes it once this process is gone
        }
        try {
            Files.deleteIfExists(socket.getParent()); // only when empty
        } catch (IOException e) {
            // other sockets in it
        }
    }
}
