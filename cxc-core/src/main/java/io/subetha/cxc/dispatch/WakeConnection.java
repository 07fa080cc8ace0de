package io.subetha.cxc.dispatch;

import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A caller's connection to an owner's {@link WakeServer}: held by one waiting thread at a time,
 * pooled by its registry handle between calls. {@link #token} names it in mailbox slots. Carries
 * only "look now" bytes both ways; see {@link WakeServer}.
 */
final class WakeConnection implements AutoCloseable {

    final long address;
    final long token;
    private final SocketChannel channel;
    private final Selector selector;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
    private final ByteBuffer one = ByteBuffer.allocateDirect(1);

    private WakeConnection(long address, long token, SocketChannel channel, Selector selector) {
        this.address = address;
        this.token = token;
        this.channel = channel;
        this.selector = selector;
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
            channel.configureBlocking(false);
            Selector selector = Selector.open();
            channel.register(selector, SelectionKey.OP_READ);
            return new WakeConnection(address, token, channel, selector);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Wakes the server's blocked dispatcher. */
    void poke() throws IOException {
        one.clear();
        channel.write(one); // 0 when its buffer is full: the server has pokes to read already
    }

    /**
     * Blocks until the server pokes (or closes), or {@code millis} pass; reads the pokes that woke
     * it (one read: a short one means there are no more). Throws when the server has gone.
     */
    void await(long millis) throws IOException {
        if (selector.select(Math.max(1, millis)) == 0) {
            return;
        }
        selector.selectedKeys().clear();
        int n;
        do {
            buffer.clear();
            n = channel.read(buffer);
        } while (n == buffer.capacity());
        if (n < 0) {
            throw new EOFException("the wake server at " + channel.getRemoteAddress() + " closed");
        }
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // closing
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing
        }
    }
}
