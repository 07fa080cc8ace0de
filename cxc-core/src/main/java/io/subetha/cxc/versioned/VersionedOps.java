package io.subetha.cxc.versioned;

/**
 * Op numbers of the versioned family (the seed's numbering), one scheme for {@link
 * SharedVersionedChain} and {@link SharedTimePointTile}. Each primitive's {@code Op} enum declares,
 * and exports, only the ops it performs.
 */
public final class VersionedOps {

    /** A value written: a chain's push, a tile's record. */
    public static final int OP_PUSH = 1;

    /** A value read back: a chain's read at a version, a tile's value as of a time. */
    public static final int OP_READ_AT = 2;

    /** The newest value read (chain). */
    public static final int OP_CURRENT = 3;

    /** Which recent versions are readable (chain). */
    public static final int OP_VISIBLE_MASK = 4;

    private VersionedOps() {}
}
