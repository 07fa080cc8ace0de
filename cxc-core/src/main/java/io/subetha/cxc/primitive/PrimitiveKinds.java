package io.subetha.cxc.primitive;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every kind of cxc file, by the code its header stores: the one registry of kind codes, above the
 * substrate (which knows none by name). Codes are part of the file format: a code is never
 * renumbered, and a retired one is never given to another kind. Each family owns a range; a new
 * primitive takes the next free code of its family's range and adds one line here (and its {@code
 * TYPE} to {@code io.subetha.cxc.catalog.PrimitiveCatalog}, which lists the types above the
 * families).
 *
 * <p>Codes 1 to 5 were given before the ranges existed and keep their numbers.
 */
public final class PrimitiveKinds {

    /** A family's reserved range of kind codes. */
    public record Family(String name, int first, int last) {
        public boolean contains(int code) {
            return code >= first && code <= last;
        }
    }

    /**
     * One kind of file.
     *
     * @param code stored in the header; never renumbered
     * @param name the name users see in errors, the actuator and metrics tags
     * @param family the family whose range holds the code
     */
    public record Kind(int code, String name, Family family) {
        /** "a leader-election", "an epoch-barrier": for messages. */
        public String withArticle() {
            return ("aeiou".indexOf(name.charAt(0)) >= 0 ? "an " : "a ") + name;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    public static final Family FIRST_WAVE = new Family("first wave", 1, 15);
    public static final Family OWNERSHIP = new Family("ownership", 16, 31);
    public static final Family LIVENESS = new Family("liveness", 32, 47);
    public static final Family EVENT_LOG = new Family("event log and versioned state", 48, 63);
    public static final Family FAN_OUT = new Family("fan-out and scheduling", 64, 79);
    public static final Family GRAPH = new Family("graph and topology", 80, 95);
    public static final Family RESOLUTION = new Family("resolution", 96, 111);
    public static final Family MEMORY = new Family("memory, collections and values", 112, 143);
    public static final Family DISPATCH = new Family("dispatch", 144, 159);

    /** For tests' own primitives; never in a file that leaves a test. */
    public static final Family TEST = new Family("test", 60_000, 60_999);

    public static final List<Family> FAMILIES =
            List.of(
                    FIRST_WAVE,
                    OWNERSHIP,
                    LIVENESS,
                    EVENT_LOG,
                    FAN_OUT,
                    GRAPH,
                    RESOLUTION,
                    MEMORY,
                    DISPATCH,
                    TEST);

    /** Codes once given and since retired: never given again. */
    public static final List<Integer> RETIRED = List.of();

    private static final Map<Integer, Kind> BY_CODE = new LinkedHashMap<>();

    public static final Kind LEADER_ELECTION = kind(1, "leader-election", FIRST_WAVE);
    public static final Kind HEARTBEAT_TABLE = kind(2, "heartbeat-table", FIRST_WAVE);
    public static final Kind FAILOVER_WATCHDOG = kind(3, "failover-watchdog", FIRST_WAVE);
    public static final Kind EPOCH_BARRIER = kind(4, "epoch-barrier", FIRST_WAVE);
    public static final Kind FENCED_LEDGER = kind(5, "fenced-ledger", FIRST_WAVE);

    public static final Kind OWNER_LEASE = kind(16, "owner-lease", OWNERSHIP);

    public static final Kind EVENT_STATE_LOG = kind(48, "event-state-log", EVENT_LOG);
    public static final Kind VERSIONED_CHAIN = kind(49, "versioned-chain", EVENT_LOG);
    public static final Kind TIME_POINT_TILE = kind(50, "time-point-tile", EVENT_LOG);

    public static final Kind PRIORITY_FANOUT = kind(64, "priority-fanout", FAN_OUT);
    public static final Kind PROGRESS_TASK = kind(65, "progress-task", FAN_OUT);
    public static final Kind BACKGROUND_SCHEDULER = kind(66, "background-scheduler", FAN_OUT);

    public static final Kind SHARED_GRAPH = kind(80, "shared-graph", GRAPH);
    public static final Kind TOPOLOGY_MAP = kind(81, "topology-map", GRAPH);

    public static final Kind CASCADE_SHARED_LEVEL = kind(96, "cascade-shared-level", RESOLUTION);
    public static final Kind ASYNC_POINTER = kind(97, "async-pointer", RESOLUTION);
    public static final Kind SHARED_UNIVERSAL = kind(98, "shared-universal", RESOLUTION);

    public static final Kind SHARED_REGION = kind(112, "shared-region", MEMORY);
    public static final Kind NAN_VALUE = kind(113, "nan-value", MEMORY);
    public static final Kind NAN_TAGGED_VALUE = kind(114, "nan-tagged-value", MEMORY);
    public static final Kind SHARED_VEC = kind(120, "shared-vec", MEMORY);
    public static final Kind SHARED_LINKED_LIST = kind(121, "shared-linked-list", MEMORY);

    public static final Kind PASS_REGISTRY = kind(144, "pass-registry", DISPATCH);

    private PrimitiveKinds() {}

    private static Kind kind(int code, String name, Family family) {
        Kind kind = new Kind(code, name, family);
        if (BY_CODE.putIfAbsent(code, kind) != null) {
            throw new ExceptionInInitializerError("kind code " + code + " given twice");
        }
        return kind;
    }

    /** Every kind, in code order of declaration. */
    public static List<Kind> all() {
        return List.copyOf(BY_CODE.values());
    }

    public static Optional<Kind> ofCode(int code) {
        return Optional.ofNullable(BY_CODE.get(code));
    }

    /** The name of kind {@code code}, if this library knows it. */
    public static Optional<String> nameOf(int code) {
        return ofCode(code).map(Kind::name);
    }
}
