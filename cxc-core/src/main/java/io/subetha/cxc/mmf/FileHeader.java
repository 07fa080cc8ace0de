package io.subetha.cxc.mmf;

import static io.subetha.cxc.mmf.HeaderDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The decoded common header of a cxc file (see {@link HeaderDescriptor} for the layout). Decoding
 * trusts nothing: the file layer checks every number against the file before use, and writes a new
 * header (see {@code internal.HeaderWriter}); this record is what reading one yields, for tools
 * that look at a file without opening it as a primitive.
 *
 * @param magic should be {@link HeaderDescriptor#MAGIC}
 * @param layoutVersion layout version of the body
 * @param kindCode the primitive's kind code
 * @param bodyLength bytes after the header
 * @param capacity the primitive's capacity (0 if none)
 * @param slotSize bytes per slot (0 if none)
 * @param creatorPid PID of the process that created the file
 * @param pidNamespace the creator's PID namespace inode, {@code PidNamespace.UNKNOWN} if unknown
 * @param createdAtMillis wall-clock creation time, for people reading the file
 * @param checksum stored CRC32C of bytes 0..55
 * @param initialised stored marker; {@link HeaderDescriptor#INITIALISED} once complete
 */
public record FileHeader(
        long magic,
        int layoutVersion,
        int kindCode,
        long bodyLength,
        int capacity,
        int slotSize,
        long creatorPid,
        long pidNamespace,
        long createdAtMillis,
        int checksum,
        int initialised) {

    /** Decodes the first {@link HeaderDescriptor#HEADER_LENGTH} bytes of {@code bytes}. */
    public static FileHeader decode(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return new FileHeader(
                b.getLong(MAGIC_OFFSET),
                b.getInt(LAYOUT_VERSION_OFFSET),
                b.getInt(KIND_OFFSET),
                b.getLong(BODY_LENGTH_OFFSET),
                b.getInt(CAPACITY_OFFSET),
                b.getInt(SLOT_SIZE_OFFSET),
                Integer.toUnsignedLong(b.getInt(CREATOR_PID_OFFSET)),
                b.getLong(PID_NAMESPACE_OFFSET),
                b.getLong(CREATED_AT_OFFSET),
                b.getInt(CHECKSUM_OFFSET),
                b.getInt(INITIALISED_OFFSET));
    }

    /** This header with another checksum and initialised marker. */
    public FileHeader with(int newChecksum, int newInitialised) {
        return new FileHeader(
                magic,
                layoutVersion,
                kindCode,
                bodyLength,
                capacity,
                slotSize,
                creatorPid,
                pidNamespace,
                createdAtMillis,
                newChecksum,
                newInitialised);
    }

    /** CRC32C of bytes 0 up to {@link HeaderDescriptor#CHECKSUM_OFFSET}. */
    public static int checksumOf(ByteBuffer bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate().position(0).limit(CHECKSUM_OFFSET));
        return (int) crc.getValue();
    }
}
