package io.subetha.cxc.testing;

import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A test's own rewrite of a cxc file's header, checksum included, as a file of another release
 * would have it: to open a file of an older layout without keeping one around.
 */
public final class RawHeader {

    private RawHeader() {}

    /** Rewrites the layout version of the file at {@code path}, and the checksum to match. */
    public static void setLayoutVersion(Path path, int version) {
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer header =
                    ByteBuffer.allocate(HeaderDescriptor.HEADER_LENGTH)
                            .order(ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            header.putInt(HeaderDescriptor.LAYOUT_VERSION_OFFSET, version);
            header.putInt(HeaderDescriptor.CHECKSUM_OFFSET, FileHeader.checksumOf(header));
            channel.write(header.position(0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
