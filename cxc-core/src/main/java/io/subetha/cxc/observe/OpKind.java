package io.subetha.cxc.observe;

/**
 * One kind of operation a primitive counts: implemented by each primitive's {@code Op} enum, whose
 * constants name the ops (lower-cased: {@code TRY_CLAIM} is exported as {@code try_claim}) and
 * carry their numbers, the primitive's {@code OP_*} constants. A primitive exports exactly the ops
 * its enum declares; numbers may leave gaps where a family's numbering skips an op this primitive
 * does not have.
 */
public interface OpKind {

    /** The op's number, 1..{@link OpCounters#MAX_OPS}: the primitive's {@code OP_*} constant. */
    int code();

    /** The name exported in metrics and the actuator. */
    default String opName() {
        return ((Enum<?>) this).name().toLowerCase(java.util.Locale.ROOT);
    }
}
