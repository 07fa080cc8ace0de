package io.subetha.cxc.resolution;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.resolution.AsyncPointerChild.Pair;
import io.subetha.cxc.testing.ChildServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A child JVM for the cascade's process tests: served by {@link ChildServer}.
 *
 * <pre>
 * open PATH CAPACITY     ok         a cascade: memory, the shared level at PATH (long to long),
 *                                   a loader counting its calls (value = key * 31 + 7)
 * get FROM TO            loads N    gets keys FROM..TO-1; N = loader calls so far
 * open-pairs PATH CAP    ok         a shared level of long to Pair
 * churn KEYS             churning   a daemon thread puts Pair.of(key) for random keys forever
 * open-race PATH CAP TURNS  ok      a shared level of long to RACE_VALUE, and TURNS: a file of two u64
 *                                   progress words, one per racer
 * race INDEX KEYS VERB   raced N    for each key 0..KEYS-1, waits until the other racer has done
 *                                   the key before it, then VERB (put: "key * 10 + INDEX"; remove)
 *                                   and publishes its own progress: both race on every key
 * </pre>
 */
public final class CascadeChild {

    private static final AtomicLong LOADS = new AtomicLong();
    private static KTowerCascade<Long, Long> cascade;
    private static CascadeSharedLevel<Long, Pair> pairs;
    private static CascadeSharedLevel<Long, String> racing;

    /**
     * The racers' values: a number in a 1 KiB string, whose write holds the slot long enough for
     * the other racer to find it held now and then and store its own copy.
     */
    static final FixedCodec<String> RACE_VALUE = FixedCodec.string(1024);

    private static AtomicBuffer turns;

    private CascadeChild() {}

    public static void main(String[] args) {
        new ChildServer()
                .on(
                        "open",
                        words -> {
                            cascade = cascade(Path.of(words[1]), Integer.parseInt(words[2]), LOADS);
                            return "ok";
                        })
                .on(
                        "get",
                        words -> {
                            for (long k = Long.parseLong(words[1]);
                                    k < Long.parseLong(words[2]);
                                    k++) {
                                long value = cascade.get(k).orElseThrow();
                                if (value != k * 31 + 7) {
                                    return "error key " + k + " gave " + value;
                                }
                            }
                            return "loads " + LOADS.get();
                        })
                .on(
                        "open-pairs",
                        words -> {
                            pairs =
                                    CascadeSharedLevel.openOrCreate(
                                            Path.of(words[1]),
                                            new CascadeSharedLevel.Settings<>(
                                                    Integer.parseInt(words[2]),
                                                    FixedCodec.INT64,
                                                    AsyncPointerChild.PAIR));
                            return "ok";
                        })
                .on(
                        "churn",
                        words -> {
                            int keys = Integer.parseInt(words[1]);
                            Thread churn =
                                    new Thread(
                                            () -> {
                                                ThreadLocalRandom random =
                                                        ThreadLocalRandom.current();
                                                while (true) {
                                                    long key = random.nextInt(keys);
                                                    if (random.nextInt(8) == 0) {
                                                        pairs.remove(key);
                                                    } else {
                                                        pairs.insert(
                                                                key,
                                                                Pair.of(
                                                                        key * 1000
                                                                                + random.nextInt(
                                                                                        1000)));
                                                    }
                                                }
                                            },
                                            "churn");
                            churn.setDaemon(true);
                            churn.start();
                            return "churning";
                        })
                .on(
                        "open-race",
                        words -> {
                            racing =
                                    CascadeSharedLevel.openOrCreate(
                                            Path.of(words[1]),
                                            new CascadeSharedLevel.Settings<>(
                                                    Integer.parseInt(words[2]),
                                                    FixedCodec.INT64,
                                                    RACE_VALUE));
                            turns = map(Path.of(words[3]));
                            return "ok";
                        })
                .on(
                        "race",
                        words -> {
                            return race(
                                    Integer.parseInt(words[1]),
                                    Integer.parseInt(words[2]),
                                    words[3].equals("put"));
                        })
                .serve();
    }

    static KTowerCascade<Long, Long> cascade(Path path, int capacity, AtomicLong loads) {
        return KTowerCascade.<Long, Long>builder()
                .level(new BoundedLevel<>("memory", 1000))
                .level(
                        CascadeSharedLevel.openOrCreate(
                                path,
                                new CascadeSharedLevel.Settings<>(
                                        capacity, FixedCodec.INT64, FixedCodec.INT64)))
                .level(
                        new LoaderLevel<>(
                                "loader",
                                key -> {
                                    loads.incrementAndGet();
                                    return key * 31 + 7;
                                }))
                .build();
    }

    /** Lock-step with the other racer through TURNS, so that both act on each key at once. */
    private static String race(int index, int keys, boolean put) {
        int mine = index * 8;
        int other = (1 - index) * 8;
        long start = turns.getLongVolatile(mine);
        for (long k = 0; k < keys; k++) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (turns.getLongVolatile(other) < start + k) {
                if (System.nanoTime() - deadline > 0) {
                    return "error waited 30 s for the other racer to finish key " + (k - 1);
                }
                Thread.yield();
            }
            if (put) {
                if (!racing.insert(k, Long.toString(k * 10 + index))) {
                    return "error put of key " + k + " dropped";
                }
            } else {
                racing.remove(k);
            }
            turns.setLongRelease(mine, start + k + 1);
        }
        return "raced " + keys;
    }

    static AtomicBuffer map(Path path) {
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return new AtomicBuffer(channel.map(FileChannel.MapMode.READ_WRITE, 0, 16));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
