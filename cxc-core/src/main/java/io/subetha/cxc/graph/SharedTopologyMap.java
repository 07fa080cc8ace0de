package io.subetha.cxc.graph;

import static io.subetha.cxc.graph.SharedTopologyMapDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Observed traffic between nodes (who sends to whom, and how much), shared by every process on the
 * host, with a routing recommendation from it: for adaptive routers that switch between fan-out and
 * fan-in by observed downstream load. Layout: {@link SharedTopologyMapDescriptor}.
 *
 * <p><b>Decay.</b> Time is counted in epochs, advanced by {@link #advanceEpoch()} (one router calls
 * it on its own timer, e.g. every second; no wall clock is read, so the same calls give the same
 * answers). When several processes share the map, each deriving the epoch from a clock they share
 * and calling {@link #advanceEpochTo} advances it once per period however many call it, where each
 * calling {@code advanceEpoch()} on its own timer would decay the loads once per caller. A link's
 * load is halved for every epoch since it was last recorded: a load recorded {@code k} epochs ago
 * counts {@code load >> k}, and is forgotten after 40. Loads saturate at 2<sup>40</sup>-1 per link.
 * A link keeps the epoch of its last record in 24 bits: one not recorded for 2<sup>23</sup> epochs
 * (97 days at one a second) may be read as recent again; any other reads decay exactly.
 *
 * <p><b>The rule</b> ({@link #recommend}), on loads decayed to the current epoch, in integers:
 *
 * <ol>
 *   <li>If the node sends: with {@code total} its outgoing load and {@code top} its heaviest link's
 *       (ties: the lowest destination id), {@link Mode#FAN_IN} if one destination takes a strict
 *       majority ({@code 2 * top > total}: a hot destination, so the node's traffic converges on
 *       one path), else {@link Mode#FAN_OUT} (the load is spread: keep spreading it).
 *   <li>Else, if it receives from two or more sources: {@link Mode#FAN_IN} (it is where traffic
 *       converges).
 *   <li>Else {@link Mode#FAN_OUT} (no evidence of a hot spot).
 * </ol>
 *
 * <p><b>Protocol.</b> {@link #record} is lock-free: it claims a link's slot once by CAS of its key
 * from 0 (linear probing from the key's hash; a full table is a {@link CxcCapacityException}), then
 * folds the load into the link's weight word (its epoch and its decayed load in one CAS'd word, so
 * they always agree), then counts the sample. A process killed between the key and the weight
 * leaves a link with no load (it reads as absent); between the weight and the count, a sample count
 * one short: samples are advisory, loads exact. Reads scan every slot ({@code fanOut}, {@code
 * fanIn}: O(capacity)). Thread-safe.
 */
public final class SharedTopologyMap extends MappedPrimitive {

    /** The ops a topology map counts, exported under these names. */
    public enum Op implements OpKind {
        RECORD(1),
        FAN_OUT(2),
        FAN_IN(3),
        RECOMMEND(4),
        ADVANCE_EPOCH(5);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** A routing mode. */
    public enum Mode {
        FAN_OUT,
        FAN_IN
    }

    /**
     * One observed link.
     *
     * @param load decayed to the current epoch
     * @param samples records counted on it, ever
     */
    public record Link(int source, int destination, long load, long samples) {}

    /**
     * A recommendation with the figures that decided it (see the class comment's rule).
     *
     * @param topDestination the heaviest destination, -1 if the node sends nothing
     */
    public record Recommendation(
            int node,
            Mode mode,
            long outLoad,
            int destinations,
            int topDestination,
            long topLoad,
            long inLoad,
            int sources,
            long epoch,
            String reason) {}

    /**
     * A topology map's creation settings.
     *
     * @param capacity distinct (source, destination) links it can hold, 1..{@value
     *     SharedTopologyMapDescriptor#MAX_CAPACITY}
     */
    public record Settings(int capacity) {
        public static final int DEFAULT_CAPACITY = 1024;

        public Settings {
            if (capacity < 1 || capacity > MAX_CAPACITY) {
                throw new CxcSettingsException(
                        "capacity",
                        "capacity " + capacity + " is outside 1.." + MAX_CAPACITY + " links");
            }
        }
    }

    public static final PrimitiveType<SharedTopologyMap, Settings> TYPE =
            PrimitiveType.<SharedTopologyMap, Settings>define(
                            PrimitiveKinds.TOPOLOGY_MAP, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .shape(
                            s -> new PrimitiveType.Shape(s.capacity(), SLOT_LENGTH),
                            SharedTopologyMapDescriptor::bodyLength)
                    .defaults(new Settings(Settings.DEFAULT_CAPACITY))
                    .construct((file, settings, options) -> new SharedTopologyMap(file));

    private final int capacity;

    private SharedTopologyMap(MappedFile file) {
        super(file, TYPE);
        this.capacity = file.header().capacity();
    }

    /** Opens an existing map created with {@code settings}' capacity. */
    public static SharedTopologyMap open(Path path, Settings settings) {
        return TYPE.open(path, settings);
    }

    /** Opens the map, or creates it with {@code settings}; race-safe across processes. */
    public static SharedTopologyMap openOrCreate(Path path, Settings settings) {
        return TYPE.openOrCreate(path, settings);
    }

    // ------------------------------------------------------------------------------ writes

    /**
     * Records {@code load} sent from {@code source} to {@code destination} in the current epoch.
     * Lock-free and allocation-free.
     *
     * @param load a message count, bytes, or a latency sample; 0 or more
     * @throws IllegalArgumentException for a negative node id or load
     * @throws CxcCapacityException if the link is new and every slot holds another link
     */
    public void record(int source, int destination, long load) {
        if (source < 0 || destination < 0 || load < 0) {
            throw new IllegalArgumentException(
                    (load < 0
                                    ? "load " + load
                                    : source < 0
                                            ? "source " + source
                                            : "destination " + destination)
                            + " is negative; node ids and loads are 0 or more");
        }
        countOp(Op.RECORD);
        long epoch = body.getLongAcquire(EPOCH_OFFSET);
        int slot = claim(key(source, destination));
        int offset = slot + WEIGHT_OFFSET;
        long weight = body.getLongVolatile(offset);
        while (true) {
            long since = epochsSince(epoch, epochOf(weight));
            long next =
                    since >= 0
                            ? weight(epoch, saturated(decayed(loadOf(weight), since), load))
                            : weight(
                                    epochOf(weight),
                                    saturated(loadOf(weight), decayed(load, -since)));
            long witness = body.compareAndExchangeLong(offset, weight, next);
            if (witness == weight) {
                break;
            }
            weight = witness;
        }
        body.getAndAddLong(slot + SAMPLES_OFFSET, 1);
    }

    /** Ends the current epoch: every load recorded so far counts half from now on. */
    public long advanceEpoch() {
        countOp(Op.ADVANCE_EPOCH);
        return body.getAndAddLong(EPOCH_OFFSET, 1) + 1;
    }

    /**
     * Raises the epoch to {@code epoch} unless it is already there or past it: idempotent, so that
     * every process may call it with an epoch derived from a clock they share, e.g. {@code
     * System.nanoTime() / period} (CLOCK_MONOTONIC, one clock for the host), and the epoch moves
     * once per period. A jump of {@code k} epochs halves older loads {@code k} times, as {@code k}
     * calls of {@link #advanceEpoch()} would.
     *
     * @return the epoch now (at least {@code epoch})
     * @throws IllegalArgumentException if {@code epoch} is negative
     */
    public long advanceEpochTo(long epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException(
                    "epoch " + epoch + " is negative; epochs count up from 0");
        }
        countOp(Op.ADVANCE_EPOCH);
        long current = body.getLongVolatile(EPOCH_OFFSET);
        while (current < epoch) {
            long witness = body.compareAndExchangeLong(EPOCH_OFFSET, current, epoch);
            if (witness == current) {
                return epoch;
            }
            current = witness;
        }
        return current;
    }

    // ------------------------------------------------------------------------------- reads

    /** The current epoch. */
    public long epoch() {
        return body.getLongAcquire(EPOCH_OFFSET);
    }

    /** {@code source}'s outgoing links with load left, heaviest first (ties: lowest id). */
    public List<Link> fanOut(int source) {
        countOp(Op.FAN_OUT);
        return links(source, true);
    }

    /** {@code destination}'s incoming links with load left, heaviest first (ties: lowest id). */
    public List<Link> fanIn(int destination) {
        countOp(Op.FAN_IN);
        return links(destination, false);
    }

    /** The mode the class comment's rule picks for {@code node}, with its figures. */
    public Recommendation recommend(int node) {
        countOp(Op.RECOMMEND);
        long epoch = epoch();
        List<Link> out = links(node, true);
        List<Link> in = links(node, false);
        long outLoad = out.stream().mapToLong(Link::load).sum();
        long inLoad = in.stream().mapToLong(Link::load).sum();
        int top = out.isEmpty() ? -1 : out.get(0).destination();
        long topLoad = out.isEmpty() ? 0 : out.get(0).load();
        Mode mode;
        String reason;
        if (outLoad > 0) {
            if (2 * topLoad > outLoad) {
                mode = Mode.FAN_IN;
                reason =
                        "destination "
                                + top
                                + " takes "
                                + topLoad
                                + " of "
                                + outLoad
                                + ", a majority";
            } else {
                mode = Mode.FAN_OUT;
                reason =
                        "load spread over "
                                + out.size()
                                + " destinations, the heaviest takes "
                                + topLoad
                                + " of "
                                + outLoad;
            }
        } else if (in.size() >= 2) {
            mode = Mode.FAN_IN;
            reason = "sends nothing, receives from " + in.size() + " sources";
        } else {
            mode = Mode.FAN_OUT;
            reason = "no hot spot observed";
        }
        return new Recommendation(
                node, mode, outLoad, out.size(), top, topLoad, inLoad, in.size(), epoch, reason);
    }

    /** Links held (slots claimed), of {@link #capacity()}. */
    public int linkCount() {
        int n = 0;
        for (int i = 0; i < capacity; i++) {
            if (body.getLongAcquire(SLOTS_OFFSET + i * SLOT_LENGTH + KEY_OFFSET) != 0) {
                n++;
            }
        }
        return n;
    }

    public int capacity() {
        return capacity;
    }

    @Override
    public Map<String, Object> describe() {
        return fields("links", linkCount(), "capacity", capacity, "epoch", epoch());
    }

    // ----------------------------------------------------------------------------- helpers

    private int claim(long key) {
        int start = (int) Long.remainderUnsigned(mix(key), capacity);
        for (int probe = 0; probe < capacity; probe++) {
            int i = start + probe;
            int slot = SLOTS_OFFSET + (i >= capacity ? i - capacity : i) * SLOT_LENGTH;
            long k = body.getLongAcquire(slot + KEY_OFFSET);
            if (k == key) {
                return slot;
            }
            if (k == 0) {
                long witness = body.compareAndExchangeLong(slot + KEY_OFFSET, 0, key);
                if (witness == 0 || witness == key) {
                    return slot;
                }
            }
        }
        throw new CxcCapacityException(
                kind()
                        + " "
                        + file.path()
                        + " is full: capacity "
                        + capacity
                        + " links, and link "
                        + source(key)
                        + " -> "
                        + destination(key)
                        + " is new");
    }

    private List<Link> links(int node, boolean outgoing) {
        long epoch = epoch();
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < capacity; i++) {
            int slot = SLOTS_OFFSET + i * SLOT_LENGTH;
            long key = body.getLongAcquire(slot + KEY_OFFSET);
            if (key == 0 || (outgoing ? source(key) : destination(key)) != node) {
                continue;
            }
            long weight = body.getLongAcquire(slot + WEIGHT_OFFSET);
            long load = decayed(loadOf(weight), epochsSince(epoch, epochOf(weight)));
            if (load > 0) {
                links.add(
                        new Link(
                                source(key),
                                destination(key),
                                load,
                                body.getLongAcquire(slot + SAMPLES_OFFSET)));
            }
        }
        links.sort(
                Comparator.comparingLong(Link::load)
                        .reversed()
                        .thenComparingInt(outgoing ? Link::destination : Link::source));
        return links;
    }

    private static long saturated(long a, long b) {
        long sum = a + b;
        return sum < 0 || sum > MAX_LOAD ? MAX_LOAD : sum;
    }

    /** A 64-bit finaliser (splitmix64): neighbouring keys land far apart. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
