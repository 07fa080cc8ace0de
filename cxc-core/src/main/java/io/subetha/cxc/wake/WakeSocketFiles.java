package io.subetha.cxc.wake;

import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Where wake sockets live and how they are named, for every socket a process sleeps on: a doorbell
 * waiter's ({@link WakeSocket}) and a pass registry owner's. One naming, one sequence per process
 * and one sweep of dead processes' sockets, so two kinds of socket beside one file never collide
 * and either kind's start cleans up after both.
 *
 * <p>{@code <file>.wake/<pid>-<start time, hex>-<seq>.sock} beside the primitive's file, in a
 * directory made owner-only ({@code rwx------}) on creation, the socket {@code rw-------}. A wake
 * address (a u64 published in the file) names a socket: PID in bits 0..21, the sequence in 22..31,
 * the owner's start time's low 32 bits in 32..63; a ringer finds the socket from the file alone.
 */
public final class WakeSocketFiles {

    /** The PID bits of a wake address: a PID above this has no address. */
    public static final long PID_MASK = (1L << 22) - 1;

    /** Sequences per process before they repeat. */
    public static final int MAX_SEQ = 1 << 10;

    private static final String SUFFIX = ".sock";
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final Set<PosixFilePermission> OWNER_DIR =
            PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_FILE =
            PosixFilePermissions.fromString("rw-------");

    private WakeSocketFiles() {}

    /** The directory of the wake sockets beside {@code file}. */
    public static Path directory(Path file) {
        return file.resolveSibling(file.getFileName() + ".wake");
    }

    /** This process's next socket sequence, shared by every kind of wake socket. */
    public static long nextSequence() {
        return Math.floorMod(SEQUENCE.getAndIncrement(), MAX_SEQ);
    }

    /** The wake address of {@code pid}'s socket number {@code seq}; 0 if the PID does not fit. */
    public static long address(long pid, long startTime, long seq) {
        if (pid <= 0 || pid > PID_MASK) {
            return 0;
        }
        return ((startTime & 0xFFFF_FFFFL) << 32) | ((seq & (MAX_SEQ - 1)) << 22) | pid;
    }

    /** The socket an address names in {@code dir}; null if the address is malformed. */
    public static @Nullable Path socketOf(Path dir, long address) {
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
     * Makes {@code dir} owner-only (creating it) and deletes the sockets in it whose process is
     * dead by PID and start time: what a process does before it binds a socket there.
     *
     * @throws IOException if the directory cannot be made, or is another user's
     */
    public static void prepare(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_DIR));
        } catch (FileAlreadyExistsException e) {
            if (!Files.getPosixFilePermissions(dir).equals(OWNER_DIR)) {
                Files.setPosixFilePermissions(dir, OWNER_DIR); // fails unless it is ours
            }
        }
        deleteDeadSockets(dir);
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
     * A non-blocking server bound to {@code socket}, made owner-only.
     *
     * @throws IOException if it cannot be bound (the name taken, no Unix sockets, a path too long)
     *     or made owner-only; nothing is left behind
     */
    public static ServerSocketChannel bind(Path socket) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(socket));
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e instanceof IOException io ? io : new IOException(e);
        }
        try {
            Files.setPosixFilePermissions(socket, OWNER_FILE);
            server.configureBlocking(false);
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            Files.deleteIfExists(socket);
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    /** Deletes a closed socket, then its directory if that is now empty. */
    public static void delete(Path socket) {
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
