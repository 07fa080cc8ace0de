package io.subetha.cxc.mmf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The common header at offset 0 of every cxc file. All fields little-endian. The body follows at
 * {@link #HEADER_LENGTH}, so it is 64-byte aligned in the page-aligned mapping.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "SUBETHA1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Layout version (u32)                     8   |
 * +---------------------------------------------------------------+
 * |                  Primitive kind (u32)                    12   |
 * +---------------------------------------------------------------+
 * |                  Body length in bytes (u64)              16   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Capacity (u32, 0 if none)               24   |
 * +---------------------------------------------------------------+
 * |                  Slot size (u32, 0 if none)              28   |
 * +---------------------------------------------------------------+
 * |                  Creator PID (u32)                       32   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (u32)                    36   |
 * +---------------------------------------------------------------+
 * |                  PID namespace inode (u64, 0 unknown)    40   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Created at, epoch millis (u64)          48   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  CRC32C of bytes 0..55 (u32)             56   |
 * +---------------------------------------------------------------+
 * |                  Initialised marker (u32)                60   |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The initialised marker is written last, with release semantics, after the header and the
 * body's initial state; a reader that acquires it sees everything before it. The checksum lets a
 * corrupt header be told apart from a valid one before any of its numbers are trusted.
 */
public final class HeaderDescriptor {

    public static final int MAGIC_OFFSET = 0;
    public static final int LAYOUT_VERSION_OFFSET = 8;
    public static final int KIND_OFFSET = 12;
    public static final int BODY_LENGTH_OFFSET = 16;
    public static final int CAPACITY_OFFSET = 24;
    public static final int SLOT_SIZE_OFFSET = 28;
    public static final int CREATOR_PID_OFFSET = 32;
    public static final int RESERVED_OFFSET = 36;
    public static final int PID_NAMESPACE_OFFSET = 40;
    public static final int CREATED_AT_OFFSET = 48;
    public static final int CHECKSUM_OFFSET = 56;
    public static final int INITIALISED_OFFSET = 60;

    /** Header size; also the body's alignment. */
    public static final int HEADER_LENGTH = 64;

    /** Bodies are sized in whole cache lines. */
    public static final int ALIGNMENT = 64;

    /** "SUBETHA1" read as a little-endian u64: readable in a hex dump of the file. */
    public static final long MAGIC = asciiMagic("SUBETHA1");

    /** Value of the initialised marker once the file is complete. Anything else: not ready. */
    public static final int INITIALISED = 0x1D1E_C0DE;

    /**
     * Largest body this library maps: one {@link java.nio.MappedByteBuffer} holds at most 2 GiB.
     */
    public static final long MAX_BODY_LENGTH = Integer.MAX_VALUE - HEADER_LENGTH;

    private HeaderDescriptor() {}

    /**
     * Eight ASCII characters read as a little-endian u64: the form of every magic number in a cxc
     * file, readable in a hex dump.
     */
    public static long asciiMagic(String eightChars) {
        byte[] bytes = eightChars.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length != 8) {
            throw new IllegalArgumentException("a magic is 8 ASCII characters: " + eightChars);
        }
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** The eight characters of a magic made by {@link #asciiMagic}. */
    public static String asciiOf(long magic) {
        byte[] bytes = new byte[8];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(magic);
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
