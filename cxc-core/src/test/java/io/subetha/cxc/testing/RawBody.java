package io.subetha.cxc.testing;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.HeaderDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A test's own writable mapping of a cxc file's body, as another (misbehaving or crashed) process
 * would have it: primitives hand application code no writable body, so tests that must plant a
 * state map the file themselves.
 */
public final class RawBody {

    private RawBody() {}

    /** The body of the cxc file at {@code path}: offsets from 0 right after the header. */
    public static AtomicBuffer of(Path path) {
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            return new AtomicBuffer(
                    channel.map(
                            FileChannel.MapMode.READ_WRITE,
                            HeaderDescriptor.HEADER_LENGTH,
                            size - HeaderDescriptor.HEADER_LENGTH));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
