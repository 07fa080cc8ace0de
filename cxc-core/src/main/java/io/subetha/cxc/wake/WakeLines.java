package io.subetha.cxc.wake;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * This process's side of ringing: the waiters of this process by wake address (rung without a
 * socket), and one connection per other waiter's socket, kept between rings (a connect costs
 * several times a write). A ring is one byte written without blocking: a full socket buffer already
 * holds rings its waiter has not read, so a write that takes nothing loses nothing.
 */
final class WakeLines {

    /** Connections kept at most; past it they are all closed, and the next rings reconnect. */
    private static final int MAX_LINES = 256;

    private static final Map<Long, DoorbellWaiter> LOCAL = new ConcurrentHashMap<>();
    private static final Map<Path, SocketChannel> LINES = new ConcurrentHashMap<>();
    private static final ThreadLocal<ByteBuffer> ONE_BYTE =
            ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(1));

    private WakeLines() {}

    /** Registers a waiter of this process under its address; false if the address is taken. */
    static boolean register(long address, DoorbellWaiter waiter) {
        return LOCAL.putIfAbsent(address, waiter) == null;
    }

    static void unregister(long address, DoorbellWaiter waiter) {
        LOCAL.remove(address, waiter);
    }

    /**
     * Rings the waiter at {@code address}: directly if it lives in this process, else through its
     * socket in {@code dir}. A ring that fails (a waiter gone, its socket refused or deleted, no
     * Unix sockets) is dropped: the waiter, if alive, looks by itself within its safety look.
     */
    static void ring(Path dir, long address) {
        DoorbellWaiter local = LOCAL.get(address);
        if (local != null) {
            local.wake();
            return;
        }
        Path socket = WakeSocketFiles.socketOf(dir, address);
        if (socket == null) {
            return;
        }
        SocketChannel line = LINES.get(socket);
        if (line != null && write(socket, line)) {
            return;
        }
        // No line yet, or a broken one (the socket was closed and maybe bound again): one fresh
        // try.
        line = connect(socket);
        if (line != null) {
            write(socket, line);
        }
    }

    private static boolean write(Path socket, SocketChannel line) {
        ByteBuffer one = ONE_BYTE.get();
        one.clear();
        try {
            line.write(one);
            return true;
        } catch (IOException | RuntimeException e) {
            LINES.remove(socket, line);
            close(line);
            return false;
        }
    }

    private static @Nullable SocketChannel connect(Path socket) {
        SocketChannel line = null;
        try {
            line = SocketChannel.open(StandardProtocolFamily.UNIX);
            line.configureBlocking(false);
            // A Unix socket connects at once, or not at all (refused, gone, its backlog full).
            if (!line.connect(UnixDomainSocketAddress.of(socket)) && !line.finishConnect()) {
                close(line);
                return null;
            }
        } catch (IOException | RuntimeException e) {
            if (line != null) {
                close(line);
            }
            return null;
        }
        if (LINES.size() >= MAX_LINES) {
            LINES.values().forEach(WakeLines::close);
            LINES.clear();
        }
        SocketChannel raced = LINES.putIfAbsent(socket, line);
        if (raced != null) {
            close(line);
            return raced;
        }
        return line;
    }

    private static void close(SocketChannel line) {
        try {
            line.close();
        } catch (IOException e) {
            // closing
        }
    }
}
