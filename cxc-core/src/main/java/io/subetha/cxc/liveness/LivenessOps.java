package io.subetha.cxc.liveness;

/**
 * Op numbers of the liveness family, one numbering for its three primitives so that a dashboard
 * reads one scheme. Kinds 1 to 5 are the original family's; the later ones count what this family
 * adds. Each primitive's {@code Op} enum declares, and exports, only the ops it performs.
 */
public final class LivenessOps {

    /** A heartbeat written (table slot, or barrier participant). */
    public static final int OP_BEAT = 1;

    /** A slot claimed (table register, barrier join). */
    public static final int OP_REGISTER = 2;

    /** A barrier wait. */
    public static final int OP_WAIT = 3;

    /** The global epoch advanced. */
    public static final int OP_TICK_EPOCH = 4;

    /** A scan of every slot (table scan, watchdog scan). */
    public static final int OP_SCAN = 5;

    /** A slot released on a clean exit (table unregister, barrier leave). */
    public static final int OP_UNREGISTER = 6;

    /** A read of one slot or of the shared state. */
    public static final int OP_READ = 7;

    /** A work id assigned to a slot (watchdog). */
    public static final int OP_ASSIGN = 8;

    /** A work id completed by its owner (watchdog). */
    public static final int OP_COMPLETE = 9;

    private LivenessOps() {}
}
