package io.subetha.cxc.resolution;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.resolution.SharedUniversal.Representation;
import io.subetha.cxc.testing.ChildServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A child JVM for the universal set's process tests: served by {@link ChildServer}.
 *
 * <pre>
 * open PATH CAPACITY          ok          (a set of longs)
 * migrate-loop                looping     a daemon thread migrates SORTED_ARRAY, HASH, ... forever
 * stop                        migrations N
 * churn SEED ACKFILE KEYS     churning    runs {@link #ops} from SEED forever; after op i returns,
 *                                         writes i + 1 at offset 0 of ACKFILE (one pwrite)
 * </pre>
 */
public final class UniversalChild {

    private static SharedUniversal<Long> set;
    private static final AtomicBoolean LOOPING = new AtomicBoolean();
    private static final AtomicLong MIGRATIONS = new AtomicLong();
    private static Thread loop;

    private UniversalChild() {}

    /**
     * One op of a seeded sequence: a key to insert (positive) or remove (negative), or a migration.
     */
    record Step(int kind, long key) {
        static final int INSERT = 0;
        static final int REMOVE = 1;
        static final int MIGRATE_SORTED = 2;
        static final int MIGRATE_HASH = 3;
    }

    /** The op sequence every churn runs from {@code seed}, which the test replays as its model. */
    static final class Ops {
        private final SplittableRandom random;
        private final int keys;
        private long index;

        Ops(long seed, int keys) {
            this.random = new SplittableRandom(seed);
            this.keys = keys;
        }

        Step next() {
            long i = index++;
            if (i % 37 == 36) {
                return new Step((i / 37) % 2 == 0 ? Step.MIGRATE_HASH : Step.MIGRATE_SORTED, 0);
            }
            long key = random.nextInt(keys);
            return new Step(random.nextInt(3) == 0 ? Step.REMOVE : Step.INSERT, key);
        }
    }

    static void apply(SharedUniversal<Long> set, Step step) {
        switch (step.kind()) {
            case Step.INSERT -> set.insert(step.key());
            case Step.REMOVE -> set.remove(step.key());
            case Step.MIGRATE_SORTED -> set.migrate(Representation.SORTED_ARRAY);
            default -> set.migrate(Representation.HASH);
        }
    }

    public static void main(String[] args) {
        new ChildServer()
                .on(
                        "open",
                        words -> {
                            set =
                                    SharedUniversal.openOrCreate(
                                            Path.of(words[1]),
                                            new SharedUniversal.Settings<>(
                                                    Integer.parseInt(words[2]), FixedCodec.INT64));
                            return "ok";
                        })
                .on(
                        "migrate-loop",
                        words -> {
                            LOOPING.set(true);
                            loop =
                                    daemon(
                                            () -> {
                                                boolean hash = true;
                                                while (LOOPING.get()) {
                                                    set.migrate(
                                                            hash
                                                                    ? Representation.HASH
                                                                    : Representation.SORTED_ARRAY);
                                                    hash = !hash;
                                                    MIGRATIONS.incrementAndGet();
                                                }
                                            });
                            return "looping";
                        })
                .on(
                        "stop",
                        words -> {
                            LOOPING.set(false);
                            loop.join(60_000);
                            return "migrations " + MIGRATIONS.get();
                        })
                .on(
                        "churn",
                        words -> {
                            long seed = Long.parseLong(words[1]);
                            Path ack = Path.of(words[2]);
                            int keys = Integer.parseInt(words[3]);
                            daemon(() -> churn(seed, ack, keys));
                            return "churning";
                        })
                .serve();
    }

    private static void churn(long seed, Path ack, int keys) {
        try (FileChannel channel =
                FileChannel.open(ack, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            Ops ops = new Ops(seed, keys);
            ByteBuffer count = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            for (long done = 1; ; done++) {
                apply(set, ops.next());
                count.clear();
                count.putLong(0, done);
                channel.write(count, 0);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Thread daemon(Runnable body) {
        Thread thread = new Thread(body, "universal-child");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
