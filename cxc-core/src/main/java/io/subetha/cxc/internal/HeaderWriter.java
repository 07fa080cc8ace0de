package io.subetha.cxc.internal;

import static io.subetha.cxc.mmf.HeaderDescriptor.*;

import io.subetha.cxc.mmf.FileHeader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Writes a new file's common header: the encoding half of {@link FileHeader}, kept inside. */
final class HeaderWriter {

    private HeaderWriter() {}

    /** A header for a new file, its checksum computed, not yet marked initialised. */
    static FileHeader forNewFile(
            FileSpec spec, long bodyLength, long creatorPid, long pidNamespace, long now) {
        FileHeader unsummed =
                new FileHeader(
                        MAGIC,
                        spec.layoutVersion(),
                        spec.kindCode(),
                        bodyLength,
                        spec.capacity(),
                        spec.slotSize(),
                        creatorPid,
                        pidNamespace,
                        now,
                        0,
                        0);
        ByteBuffer scratch = ByteBuffer.allocate(HEADER_LENGTH);
        encodeWithoutMarker(unsummed, scratch);
        return unsummed.with(FileHeader.checksumOf(scratch), 0);
    }

    /**
     * Writes every field but the initialised marker with plain stores; the caller publishes the
     * marker last with a release store.
     */
    static void encodeWithoutMarker(FileHeader h, ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(MAGIC_OFFSET, h.magic());
        b.putInt(LAYOUT_VERSION_OFFSET, h.layoutVersion());
        b.putInt(KIND_OFFSET, h.kindCode());
        b.putLong(BODY_LENGTH_OFFSET, h.bodyLength());
        b.putInt(CAPACITY_OFFSET, h.capacity());
        b.putInt(SLOT_SIZE_OFFSET, h.slotSize());
        b.putInt(CREATOR_PID_OFFSET, (int) h.creatorPid());
        b.putInt(RESERVED_OFFSET, 0);
        b.putLong(PID_NAMESPACE_OFFSET, h.pidNamespace());
        b.putLong(CREATED_AT_OFFSET, h.createdAtMillis());
        b.putInt(CHECKSUM_OFFSET, h.checksum());
    }
}
