package io.subetha.cxc.badinput;

import static io.subetha.cxc.mmf.HeaderDescriptor.CHECKSUM_OFFSET;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.zip.CRC32C;

/** A file's bytes and modification time, to prove that an open that failed wrote nothing. */
record FileBytes(byte[] bytes, FileTime modified) {

    static FileBytes of(Path file) throws IOException {
        return new FileBytes(
                Files.readAllBytes(file),
                Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS));
    }

    boolean sameAs(FileBytes other) {
        return Arrays.equals(bytes, other.bytes) && modified.equals(other.modified);
    }

    /** A little-endian view of a copy of {@code bytes}, for editing header fields. */
    static ByteBuffer edit(byte[] bytes) {
        return ByteBuffer.wrap(bytes.clone()).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Recomputes the header checksum so an edited field gets past it. */
    static byte[] withChecksum(ByteBuffer header) {
        CRC32C crc = new CRC32C();
        crc.update(header.array(), 0, CHECKSUM_OFFSET);
        header.putInt(CHECKSUM_OFFSET, (int) crc.getValue());
        return header.array();
    }
}
