package io.subetha.cxc.observe;

import java.util.Locale;

/**
 * One kind of operation a primitive counts: implemented by each primitive's {@code Op} enum, whose
 * constants carry their numbers ({@code BEAT(1)}): the seed's numbering, which may leave gaps where
 * a family's numbering skips an op this primitive does not have. Its exported name is the
 * constant's, lower-cased ({@code TRY_CLAIM} is {@code try_claim}). A primitive exports exactly the
 * ops its enum declares.
 */
public interface OpKind {

    /** The op's number, 1..{@link OpCounters#MAX_OPS}. */
    int code();

    /** The name exported in metrics and the actuator. */
    default String opName() {
        return ((Enum<?>) this).name().toLowerCase(Locale.ROOT);
    }
}
