package io.subetha.cxc.resolution;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.testing.Linearizability;
import io.subetha.cxc.testing.ProcessHandles;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * The universal set's insert, remove, look-up, size, snapshot and migration are linearizable across
 * handles on one file, whichever representation is active: every concurrent history is one a
 * bounded {@link TreeSet} with a representation tag ({@link Model}) could produce. The capacity is
 * small so that a full set happens.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "key", gen = IntGen.class, conf = "1:4")
public class SharedUniversalLinearizabilityTest {

    private static final int CAPACITY = 3;
    private static final SharedUniversal.Settings SETTINGS =
            new SharedUniversal.Settings(CAPACITY, FixedCodec.INT64);

    private final ProcessHandles<SharedUniversal<Long>> sets =
            ProcessHandles.on(
                    "universal",
                    path -> SharedUniversal.TYPE.create(path, SETTINGS),
                    path -> SharedUniversal.TYPE.open(path, SETTINGS));

    /** Whether the key was added; "full" if the set held {@link #CAPACITY} other keys. */
    @Operation
    public String insert(@Param(name = "thread") int thread, @Param(name = "key") int key) {
        try {
            return String.valueOf(sets.of(thread).insert((long) key));
        } catch (CxcCapacityException full) {
            return "full";
        }
    }

    @Operation
    public boolean remove(@Param(name = "thread") int thread, @Param(name = "key") int key) {
        return sets.of(thread).remove((long) key);
    }

    @Operation
    public boolean containsKey(@Param(name = "thread") int thread, @Param(name = "key") int key) {
        return sets.of(thread).containsKey((long) key);
    }

    @Operation
    public int size(@Param(name = "thread") int thread) {
        return sets.of(thread).size();
    }

    /** The keys, in ascending order whatever the representation's own order. */
    @Operation
    public List<Long> keys(@Param(name = "thread") int thread) {
        return new ArrayList<>(new TreeSet<>(sets.of(thread).keys()));
    }

    @Operation
    public void migrateToHash(@Param(name = "thread") int thread) {
        sets.of(thread).migrate(SharedUniversal.Representation.HASH);
    }

    @Operation
    public void migrateToSortedArray(@Param(name = "thread") int thread) {
        sets.of(thread).migrate(SharedUniversal.Representation.SORTED_ARRAY);
    }

    @Operation
    public SharedUniversal.Representation representation(@Param(name = "thread") int thread) {
        return sets.of(thread).representation();
    }

    @Test
    void stress() {
        Linearizability.stress().sequentialSpecification(Model.class).check(getClass());
    }

    @Test
    void modelChecking() {
        Linearizability.modelChecking().sequentialSpecification(Model.class).check(getClass());
    }

    /** A bounded sorted set and the representation a new set starts in. */
    public static final class Model {
        private final TreeSet<Long> keys = new TreeSet<>();
        private SharedUniversal.Representation representation =
                SharedUniversal.Representation.SORTED_ARRAY;

        public String insert(int thread, int key) {
            if (keys.contains((long) key)) {
                return "false";
            }
            if (keys.size() == CAPACITY) {
                return "full";
            }
            keys.add((long) key);
            return "true";
        }

        public boolean remove(int thread, int key) {
            return keys.remove((long) key);
        }

        public boolean containsKey(int thread, int key) {
            return keys.contains((long) key);
        }

        public int size(int thread) {
            return keys.size();
        }

        public List<Long> keys(int thread) {
            return new ArrayList<>(keys);
        }

        public void migrateToHash(int thread) {
            representation = SharedUniversal.Representation.HASH;
        }

        public void migrateToSortedArray(int thread) {
            representation = SharedUniversal.Representation.SORTED_ARRAY;
        }

        public SharedUniversal.Representation representation(int thread) {
            return representation;
        }
    }
}
