package io.subetha.cxc.codec;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.AtomicBuffer;

/**
 * Turns values of {@code T} into exactly {@link #size()} bytes of an {@link AtomicBuffer} and back:
 * the typed payload of a slot, a ledger entry or a published value.
 *
 * <h2>Layout rules</h2>
 *
 * All numbers little-endian, like every other field of a cxc file.
 *
 * <table>
 *   <caption>Built-in codecs</caption>
 *   <tr><th>codec</th><th>Java type</th><th>size</th><th>alignment</th><th>stored as</th></tr>
 *   <tr><td>{@link #INT64}</td><td>long, Long</td><td>8</td><td>8</td><td>two's complement</td></tr>
 *   <tr><td>{@link #INT32}</td><td>int, Integer</td><td>4</td><td>4</td><td>two's complement</td></tr>
 *   <tr><td>{@link #INT16}</td><td>short, Short</td><td>2</td><td>2</td><td>two's complement</td></tr>
 *   <tr><td>{@link #INT8}</td><td>byte, Byte</td><td>1</td><td>1</td><td>two's complement</td></tr>
 *   <tr><td>{@link #FLOAT64}</td><td>double, Double</td><td>8</td><td>8</td>
 *       <td>raw IEEE 754 bits: -0.0 and NaN payloads survive</td></tr>
 *   <tr><td>{@link #FLOAT32}</td><td>float, Float</td><td>4</td><td>4</td>
 *       <td>raw IEEE 754 bits</td></tr>
 *   <tr><td>{@link #BOOL}</td><td>boolean, Boolean</td><td>1</td><td>1</td>
 *       <td>0 or 1; any other byte reads as a {@link CxcFormatException}</td></tr>
 *   <tr><td>{@link #bytes bytes(n)}</td><td>byte[]</td><td>n</td><td>1</td>
 *       <td>the n bytes</td></tr>
 *   <tr><td>{@link #string string(n)}</td><td>String</td><td>4 + n</td><td>4</td>
 *       <td>UTF-8 length (u32, 0..n), then n bytes: the UTF-8, zero after it</td></tr>
 *   <tr><td>{@link #record record(R)}</td><td>R</td><td>see below</td>
 *       <td>largest of its components'</td><td>its components, in declaration order</td></tr>
 * </table>
 *
 * <p>A record is laid out like a C struct with natural alignment: each component starts at the
 * first offset (relative to the record's start) that is a multiple of its own alignment and not
 * before the end of the previous component; the record's alignment is the largest alignment of its
 * components; its size is the end of its last component rounded up to a multiple of that alignment,
 * so that records placed back to back stay aligned. A component that is itself a record is laid out
 * by the same rules, as one unit. Padding is written as zero bytes. No alignment exceeds 8, so a
 * value placed at an 8-byte aligned offset (every slot of a cxc file is) has every field naturally
 * aligned in memory as well. For example {@code record Order(long id, short quantity, boolean
 * urgent, @FixedSize(10) String note, double price)} is 40 bytes, 8-aligned:
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       id (long)                           0   |
 * |                                                               |
 * +-------------------------------+---------------+---------------+
 * |    quantity (short)       8   | urgent (bool) |  padding, 0   |
 * +-------------------------------+---------------+---------------+
 * |              note: UTF-8 length (u32, 0..10)             12   |
 * +---------------------------------------------------------------+
 * |              note: 10 bytes, the UTF-8 then zeros        16   |
 * |                                                               |
 * +                               +-------------------------------+
 * |                               |         padding, 0       26   |
 * +-------------------------------+-------------------------------+
 * |                         padding, 0                       28   |
 * +---------------------------------------------------------------+
 * |                       price (double)                     32   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <h2>Writing and reading</h2>
 *
 * <ul>
 *   <li><b>Plain stores.</b> {@link #write} stores with plain (non-atomic, unordered) accesses; a
 *       value wider than one aligned word is not written atomically. Publish it with your own
 *       protocol: write, then {@code setRelease} a sequence or ready word that readers {@code
 *       getAcquire}. An optimistic (seqlock) reader can see a torn value and must check its
 *       sequence after reading and discard what it read before trusting it, including a {@link
 *       CxcFormatException} that a torn string length can cause.
 *   <li><b>Nothing stored on a rejected write.</b> {@code write} checks the bounds and the whole
 *       value first: an offset that would overflow the buffer is an {@link
 *       IndexOutOfBoundsException}, a value the layout cannot hold an {@link
 *       IllegalArgumentException}, and in both cases no byte has been stored.
 *   <li><b>Deterministic bytes.</b> {@code write} stores exactly {@code size()} bytes, each
 *       determined by the value alone (padding and the unused end of a string are zero), so equal
 *       values leave equal bytes whatever was there before.
 *   <li><b>Values are never cut.</b> A string longer than its limit or a byte array of another
 *       length is refused with a message naming the limit and the actual length.
 *   <li><b>Untrusted bytes.</b> {@link #read} treats the buffer as data from another process: a
 *       stored value this codec never writes (a string length above the limit, a boolean byte other
 *       than 0 or 1) is a {@link CxcFormatException} naming the offset, never an exception from
 *       deep inside. Malformed UTF-8 within a valid length (only a foreign writer can make it)
 *       reads as U+FFFD replacement characters.
 * </ul>
 *
 * <p><b>No nulls.</b> {@code null} is not a value: writing it (or a record with a {@code null}
 * boxed, {@code byte[]}, {@code String} or record component) is an {@link IllegalArgumentException}
 * ("FixedCodec values cannot be null"), and {@code read} never returns {@code null}. Optional or
 * nullable components are out of scope: a fixed layout would need a presence flag per component.
 * Model absence explicitly, with a {@code boolean present} component beside the value or a sentinel
 * value.
 *
 * <h2>Fingerprint</h2>
 *
 * {@link #fingerprint()} identifies the layout, and the header of a file that holds typed payloads
 * stores it, so that a process opening the file with another layout is refused instead of
 * misreading bytes. For the built-in codecs it is the 64-bit FNV-1a hash of the UTF-8 bytes of
 * {@code "cxc.codec.v1:"} followed by a canonical layout string ({@code i64}, {@code i32}, {@code
 * i16}, {@code i8}, {@code f64}, {@code f32}, {@code bool}, {@code bytes(n)}, {@code string(n)},
 * {@code record(i64 id,i16 quantity,...)}); it is the same in every JVM run and on every host, and
 * never 0, so that a header may use 0 for "no codec". The {@code v1} names the layout rules above:
 * changing a rule changes every fingerprint.
 *
 * <p>A record's fingerprint covers every component's name, type and size, in order, recursively
 * through nested records: reordering, resizing, retyping, adding, removing or renaming a component
 * changes it. Component names are in it because they carry the meaning of the bytes: swapping two
 * components of one type ({@code bid} and {@code ask}) changes nothing else. The record's class
 * name and package are not in it: they are a Java-side label that a refactoring renames or moves
 * without changing one stored byte, and that must not make existing files unreadable. Hence two
 * records of the same shape share a fingerprint, and {@code long} and {@code Long} components are
 * the same layout. The fingerprint guards the layout, not the class.
 *
 * <p>Built-in codecs are immutable and thread-safe. Building a record codec reflects over the
 * record: build it once and keep it. Other implementations must keep this contract; they cannot be
 * components of a record codec, which takes only the built-in types.
 *
 * @param <T> the value type
 */
public interface FixedCodec<T> {

    /** {@code long}: 8 bytes, 8-aligned. */
    FixedCodec<Long> INT64 = ScalarCodec.INT64;

    /** {@code int}: 4 bytes, 4-aligned. */
    FixedCodec<Integer> INT32 = ScalarCodec.INT32;

    /** {@code short}: 2 bytes, 2-aligned. */
    FixedCodec<Short> INT16 = ScalarCodec.INT16;

    /** {@code byte}: 1 byte. */
    FixedCodec<Byte> INT8 = ScalarCodec.INT8;

    /** {@code double}: its raw IEEE 754 bits, 8 bytes, 8-aligned. */
    FixedCodec<Double> FLOAT64 = ScalarCodec.FLOAT64;

    /** {@code float}: its raw IEEE 754 bits, 4 bytes, 4-aligned. */
    FixedCodec<Float> FLOAT32 = ScalarCodec.FLOAT32;

    /** {@code boolean}: one byte, 0 or 1. */
    FixedCodec<Boolean> BOOL = ScalarCodec.BOOL;

    /** Bytes this codec stores for every value; fixed and positive. */
    int size();

    /**
     * Stores {@code value} in {@code size()} bytes from {@code offset}, with plain stores; publish
     * them with a release store or CAS of your own.
     *
     * @throws IndexOutOfBoundsException if {@code offset} is negative or the value would not end
     *     inside the buffer; nothing is stored
     * @throws IllegalArgumentException if {@code value} is {@code null} or does not fit the layout;
     *     nothing is stored
     */
    void write(AtomicBuffer buffer, int offset, T value);

    /**
     * Reads the value stored at {@code offset}, with plain loads; acquire whatever published it
     * first.
     *
     * @throws IndexOutOfBoundsException if {@code offset} is negative or the value would not end
     *     inside the buffer
     * @throws CxcFormatException if the bytes hold something this codec never writes
     */
    T read(AtomicBuffer buffer, int offset);

    /** A 64-bit identity of the layout, stable across JVM runs; see the class documentation. */
    long fingerprint();

    /**
     * The layout for people, for instance {@code record Order(long id, int quantity, string(16)
     * note)}; error messages name both layouts when two of them disagree.
     */
    String describe();

    /**
     * Exactly {@code length} bytes, stored as they are.
     *
     * @throws IllegalArgumentException if {@code length} is less than 1
     */
    static FixedCodec<byte[]> bytes(int length) {
        return new BytesCodec(length);
    }

    /**
     * A string of at most {@code maxUtf8Bytes} bytes of UTF-8, after a 4-byte length: {@code 4 +
     * maxUtf8Bytes} bytes in all. A longer string is refused, never cut; so is a string with an
     * unpaired surrogate, which UTF-8 cannot hold.
     *
     * @throws IllegalArgumentException if {@code maxUtf8Bytes} is less than 1 or so large that the
     *     size would not fit an {@code int}
     */
    static FixedCodec<String> string(int maxUtf8Bytes) {
        return new StringCodec(maxUtf8Bytes);
    }

    /**
     * A record of {@code long}, {@code int}, {@code short}, {@code byte}, {@code double}, {@code
     * float}, {@code boolean} (primitive or boxed), {@code byte[]} and {@code String} components
     * sized with {@link FixedSize}, and records of those, laid out in declaration order by the
     * rules in the class documentation. Reading calls the canonical constructor, so a compact
     * constructor's checks apply to what is read.
     *
     * @throws IllegalArgumentException naming the record, the component and the fix, if a
     *     component's type is not supported, a {@code byte[]} or {@code String} lacks its {@link
     *     FixedSize}, a size is invalid, the record contains itself, has no components, or is not
     *     accessible to this library
     */
    static <R extends Record> FixedCodec<R> record(Class<R> type) {
        return RecordCodec.of(type);
    }
}
