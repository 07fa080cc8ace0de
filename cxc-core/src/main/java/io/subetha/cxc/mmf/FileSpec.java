package io.subetha.cxc.mmf;

/**
 * What a primitive expects of its file: kind, layout version, and shape. Used to create a file and
 * to validate one on open.
 *
 * @param kind the primitive stored in the file
 * @param layoutVersion the body layout version this code reads and writes
 * @param capacity slots, participants, entries...; {@link #ANY} on open to accept what the file
 *     says (still checked against {@code layout})
 * @param slotSize bytes per slot where it varies; {@link #ANY} on open to accept what the file says
 * @param layout derives and checks the body length
 */
public record FileSpec(
        PrimitiveKind kind, int layoutVersion, int capacity, int slotSize, BodyLayout layout) {

    /** On open: accept the capacity or slot size the file declares. */
    public static final int ANY = -1;

    /** A spec for a primitive with a fixed-size body and no capacity. */
    public static FileSpec fixed(PrimitiveKind kind, int layoutVersion, long bodyLength) {
        return new FileSpec(kind, layoutVersion, 0, 0, BodyLayout.fixed(bodyLength));
    }

    /** The same spec with another expected capacity. */
    public FileSpec withCapacity(int newCapacity) {
        return new FileSpec(kind, layoutVersion, newCapacity, slotSize, layout);
    }
}
