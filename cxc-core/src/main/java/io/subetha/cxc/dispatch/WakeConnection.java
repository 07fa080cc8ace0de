package io.subetha.cxc.dispatch;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * A caller's line to an owner's {@link WakeServer}: pooled by its registry handle, used by one
 * thread at a time to poke the owner's dispatcher awake once it announced it sleeps. Carries only
 * "look now" bytes; see {@link WakeServer}. A poke is one byte written into a socket buffer of many
 * kilobytes, at most once per announcement the dispatcher made, and the dispatcher drains before it
 * announces again, so a poke never blocks on a full buffer.
 */
final class WakeConnection implements AutoCloseable {

    final long address;
    private final SocketChannel channel;
    private final ByteBuffer one = ByteBuffer.allocateDirect(1);

    private WakeConnection(long address, SocketChannel channel) {
        this.address = address;
        this.channel = channel;
    }

    /** Connects to the server at {@code socket}. */
    static WakeConnection connect(Path socket, long address) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return new WakeConnection(address, channel);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Wakes the server's blocked dispatcher.
     *
     * @throws IOException if the server closed this line (to end a blocking read of it, or on
     *     close) or is gone
     */
    void poke() throws IOException {
        one.clear();
        channel.write(one);
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // closing
        }
    }
}
