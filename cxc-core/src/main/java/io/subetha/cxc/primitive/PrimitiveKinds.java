package io.subetha.cxc.primitive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Every kind of cxc file, by the code its header stores: the one registry of kind codes, above the
 * substrate (which knows none by name). Codes are part of the file format: a code is never
 * renumbered, and a retired one is never given to another kind.
 *
 * <p>A family is one package of primitives and owns the codes of its ranges; a new primitive takes
 * the next free code of its family's ranges, adds one line here and its {@code TYPE} to {@code
 * io.subetha.cxc.catalog.PrimitiveCatalog}. Codes 1 to 5 were given before families had ranges:
 * each family's first range holds the codes it already had, its second the codes it may still give.
 */
public final class PrimitiveKinds {

    /** Codes {@code first} to {@code last}, both included. */
    public record Range(int first, int last) {
        public Range {
            if (first < 1 || last < first) {
                throw new IllegalArgumentException(
                        "a range of kind codes needs 1 <= first <= last");
            }
        }

        public boolean contains(int code) {
            return code >= first && code <= last;
        }

        public boolean overlaps(Range other) {
            return first <= other.last && other.first <= last;
        }
    }

    /**
     * A family of primitives: the package that holds them and the kind codes reserved for them.
     *
     * @param name what users read: "liveness"
     * @param packageName the package every primitive of the family lives in
     * @param ranges the codes the family owns
     */
    public record Family(String name, String packageName, List<Range> ranges) {
        public Family {
            ranges = List.copyOf(ranges);
        }

        public boolean contains(int code) {
            return ranges.stream().anyMatch(range -> range.contains(code));
        }

        public boolean overlaps(Family other) {
            return ranges.stream().anyMatch(a -> other.ranges.stream().anyMatch(a::overlaps));
        }

        @Override
        public String toString() {
            return name + " " + ranges;
        }
    }

    /**
     * One kind of file.
     *
     * @param code stored in the header; never renumbered
     * @param name the name users see in errors, the actuator and metrics tags
     * @param family the family whose ranges hold the code
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

    private static final String CXC = "io.subetha.cxc.";

    public static final Family ELECTION = family("election", 1, 1, 5, 5, 17, 23);
    public static final Family LEASE = family("lease", 16, 16, 24, 31);
    public static final Family LIVENESS = family("liveness", 2, 4, 32, 47);
    public static final Family EVENT_LOG = family("eventlog", 48, 48, 51, 55);
    public static final Family VERSIONED = family("versioned", 49, 50, 56, 63);
    public static final Family FAN_OUT = family("fanout", 64, 65, 67, 71);
    public static final Family SCHEDULING = family("scheduling", 66, 66, 72, 79);
    public static final Family GRAPH = family("graph", 80, 95);
    public static final Family RESOLUTION = family("resolution", 96, 111);
    public static final Family REGION = family("region", 112, 112, 115, 119);
    public static final Family VALUES = family("values", 113, 114, 122, 131);
    public static final Family COLLECTIONS = family("collections", 120, 121, 132, 143);
    public static final Family DISPATCH = family("dispatch", 144, 159);

    /** For tests' own primitives; never in a file that leaves a test. */
    public static final Family TEST =
            new Family("test", CXC + "testing", List.of(new Range(60_000, 60_999)));

    public static final List<Family> FAMILIES =
            List.of(
                    ELECTION,
                    LEASE,
                    LIVENESS,
                    EVENT_LOG,
                    VERSIONED,
                    FAN_OUT,
                    SCHEDULING,
                    GRAPH,
                    RESOLUTION,
                    REGION,
                    VALUES,
                    COLLECTIONS,
                    DISPATCH,
                    TEST);

    /** Codes once given and since retired: never given again. */
    public static final List<Integer> RETIRED = List.of();

    private static final Map<Integer, Kind> BY_CODE = new TreeMap<>();

    public static final Kind LEADER_ELECTION = kind(1, "leader-election", ELECTION);
    public static final Kind FENCED_LEDGER = kind(5, "fenced-ledger", ELECTION);

    public static final Kind OWNER_LEASE = kind(16, "owner-lease", LEASE);

    public static final Kind HEARTBEAT_TABLE = kind(2, "heartbeat-table", LIVENESS);
    public static final Kind FAILOVER_WATCHDOG = kind(3, "failover-watchdog", LIVENESS);
    public static final Kind EPOCH_BARRIER = kind(4, "epoch-barrier", LIVENESS);

    public static final Kind EVENT_STATE_LOG = kind(48, "event-state-log", EVENT_LOG);
    public static final Kind EVENT_LOG_READERS = kind(51, "event-log-readers", EVENT_LOG);

    public static final Kind VERSIONED_CHAIN = kind(49, "versioned-chain", VERSIONED);
    public static final Kind TIME_POINT_TILE = kind(50, "time-point-tile", VERSIONED);

    public static final Kind PRIORITY_FANOUT = kind(64, "priority-fanout", FAN_OUT);
    public static final Kind PROGRESS_TASK = kind(65, "progress-task", FAN_OUT);

    public static final Kind BACKGROUND_SCHEDULER = kind(66, "background-scheduler", SCHEDULING);

    public static final Kind SHARED_GRAPH = kind(80, "shared-graph", GRAPH);
    public static final Kind TOPOLOGY_MAP = kind(81, "topology-map", GRAPH);

    public static final Kind CASCADE_SHARED_LEVEL = kind(96, "cascade-shared-level", RESOLUTION);
    public static final Kind ASYNC_POINTER = kind(97, "async-pointer", RESOLUTION);
    public static final Kind SHARED_UNIVERSAL = kind(98, "shared-universal", RESOLUTION);

    public static final Kind SHARED_REGION = kind(112, "shared-region", REGION);

    public static final Kind NAN_VALUE = kind(113, "nan-value", VALUES);
    public static final Kind NAN_TAGGED_VALUE = kind(114, "nan-tagged-value", VALUES);

    public static final Kind SHARED_VEC = kind(120, "shared-vec", COLLECTIONS);
    public static final Kind SHARED_LINKED_LIST = kind(121, "shared-linked-list", COLLECTIONS);

    public static final Kind PASS_REGISTRY = kind(144, "pass-registry", DISPATCH);

    private PrimitiveKinds() {}

    /**
     * A family in package {@code io.subetha.cxc.<name>}, owning ranges given as first, last pairs.
     */
    private static Family family(String name, int... firstLast) {
        List<Range> ranges = new ArrayList<>();
        for (int i = 0; i < firstLast.length; i += 2) {
            ranges.add(new Range(firstLast[i], firstLast[i + 1]));
        }
        return new Family(name, CXC + name, ranges);
    }

    private static Kind kind(int code, String name, Family family) {
        Kind kind = new Kind(code, name, family);
        if (BY_CODE.putIfAbsent(code, kind) != null) {
            throw new ExceptionInInitializerError("kind code " + code + " given twice");
        }
        return kind;
    }

    /** Every kind, in code order. */
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
