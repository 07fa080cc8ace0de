package io.subetha.cxc.internal;

/**
 * How a primitive's body length follows from its capacity and slot size. Used both to size a new
 * file and to check that a header's numbers agree with each other before any of them is trusted.
 */
@FunctionalInterface
public interface BodyLayout {

    /**
     * @return the body length in bytes, a multiple of {@link
     *     io.subetha.cxc.mmf.HeaderDescriptor#ALIGNMENT}
     * @throws IllegalArgumentException if this primitive does not allow the capacity or slot size;
     *     the message says which values are allowed
     */
    long bodyLength(int capacity, int slotSize);

    /** A body of one fixed length, for primitives without capacity. */
    static BodyLayout fixed(long length) {
        return (capacity, slotSize) -> {
            if (capacity != 0 || slotSize != 0) {
                throw new IllegalArgumentException(
                        "this primitive has no capacity or slot size (both must be 0)");
            }
            return length;
        };
    }
}
