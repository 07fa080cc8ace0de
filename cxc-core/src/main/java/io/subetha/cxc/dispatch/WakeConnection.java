package io.subetha.cxc.dispatch;

import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A caller's connection to an owner's {@link WakeServer}: held by one waiting thread at a time,
 * pooled by its registry handle between calls. {@link #token} names it in mailbox slots. Carries
 * only "look now" bytes both ways; see {@link WakeServer}.
 *
 * <p>The channel is in blocking mode: a blocked caller waits in one untimed {@code read}, the
 * poke's own system call, as a caller of a plain Unix socket does. Its bounds come from elsewhere:
 * the owner's death closes the other end (the read returns end-of-stream at once), and the caller's
 * registry handle runs a ticker that {@linkplain #close closes} a connection whose caller is due
 * (its deadline, an answer a lost poke did not announce, an owner found gone), which ends the read
 * with an {@link java.nio.channels.AsynchronousCloseException}. A poke is one byte written into a
 * socket buffer of many kilobytes, and each side pokes at most once per announcement the other made
 * and drains before it announces again, so a poke never blocks on a full buffer.
 */
final class WakeConnection implements AutoCloseable {

    final long address;
    final long token;
    private final SocketChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
    private final ByteBuffer one = ByteBuffer.allocateDirect(1);

    private WakeConnection(long address, long token, SocketChannel channel) {
        this.address = address;
        this.token = token;
        this.channel = channel;
    }

    /** Connects to the server at {@code socket} and sends a fresh token. */
    static WakeConnection connect(Path socket, long address) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
            long token;
            do {
                token = ThreadLocalRandom.current().nextLong();
            } while (token == 0);
            ByteBuffer hello = ByteBuffer.allocate(8).putLong(0, token);
            while (hello.hasRemaining()) {
                channel.write(hello);
            }
            return new WakeConnection(address, token, channel);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Wakes the server's blocked dispatcher. */
    void poke() throws IOException {
        one.clear();
        channel.write(one);
    }

    /**
     * Blocks until the server pokes, closes or dies, or this connection is {@linkplain #close
     * closed}; takes the pokes that have arrived, up to 64 (one read: a second would block; any
     * left over only make a later wait return early, which its caller looks past).
     *
     * @throws EOFException if the server closed (its owner closed its registry, or died)
     * @throws java.nio.channels.AsynchronousCloseException if closed while blocked
     */
    void await() throws IOException {
        buffer.clear();
        if (channel.read(buffer) < 0) {
            throw new EOFException("the wake server at " + channel.getRemoteAddress() + " closed");
        }
    }

    /** Closes the channel; a thread blocked in {@link #await} returns with an exception. */
    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // closing
        }
    }
}
