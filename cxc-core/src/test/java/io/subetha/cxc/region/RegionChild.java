package io.subetha.cxc.region;

import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.ChildServer;
import io.subetha.cxc.testing.PointFreeze;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A child JVM for the region's process tests. Modes (first argument), each on region PATH:
 *
 * <pre>
 * step PATH SEED POINT N    churn; the Nth time it reaches POINT, print "at POINT" and park
 *                           forever (the test SIGKILLs it there)
 * churn PATH SEED           churn until killed; "ready" after the first 2000 steps
 * exchange PATH COUNT       allocate COUNT blocks, fill each with its pattern, print
 *                           "handles H1 H2 ...", then serves ({@link ChildServer}): "free H..." frees them
 *                           ("freed N cached C bytes B": C blocks of B bytes in its free cache),
 *                           "check" verifies its own blocks ("ok")
 * </pre>
 *
 * Churn: random allocations of 1..300 bytes, each filled with its pattern and checked before it is
 * freed, about half of them held at a time.
 */
public final class RegionChild {

    private RegionChild() {}

    public static void main(String[] args) throws Exception {
        SharedRegion region =
                SharedRegion.TYPE.openAsRecorded(Path.of(args[1]), CxcFileOptions.defaults());
        switch (args[0]) {
            case "step":
                Point point = Point.valueOf(args[3]);
                long nth = Long.parseLong(args[4]);
                PointFreeze.install(point, nth, "at");
                churn(region, Long.parseLong(args[2]), false);
                break;
            case "churn":
                churn(region, Long.parseLong(args[2]), true);
                break;
            case "exchange":
                exchange(region, Integer.parseInt(args[2]));
                break;
            default:
                throw new IllegalArgumentException(args[0]);
        }
    }

    static byte[] pattern(long handle, int size) {
        byte[] bytes = new byte[size];
        long x = handle * 0x9E3779B97F4A7C15L;
        for (int i = 0; i < size; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            bytes[i] = (byte) x;
        }
        return bytes;
    }

    private static void churn(SharedRegion region, long seed, boolean announce) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Long> held = new ArrayList<>();
        for (long step = 0; ; step++) {
            if (announce && step == 2000) {
                say("ready");
            }
            if (held.isEmpty() || (held.size() < 64 && random.nextBoolean())) {
                int size = 1 + random.nextInt(300);
                try {
                    long handle = region.allocate(size);
                    region.set(handle, pattern(handle, size));
                    held.add(handle);
                } catch (CxcCapacityException full) {
                    // the other churners hold the rest: free one of ours instead
                }
            } else {
                long handle = held.remove(random.nextInt(held.size()));
                byte[] expected = pattern(handle, region.sizeOf(handle));
                if (!Arrays.equals(region.get(handle), expected)) {
                    say("error block " + handle + " changed under its owner");
                    Runtime.getRuntime().halt(3);
                }
                region.free(handle);
            }
        }
    }

    private static void exchange(SharedRegion region, int count) throws Exception {
        List<Long> own = new ArrayList<>();
        StringBuilder line = new StringBuilder("handles");
        for (int i = 0; i < count; i++) {
            int size = 1 + (i * 37) % 200;
            long handle = region.allocate(size);
            region.set(handle, pattern(handle, size));
            own.add(handle);
            line.append(' ').append(handle);
        }
        say(line.toString());
        new ChildServer()
                .on(
                        "free",
                        words -> {
                            for (int i = 1; i < words.length; i++) {
                                region.free(Long.parseLong(words[i]));
                            }
                            return "freed "
                                    + (words.length - 1)
                                    + " cached "
                                    + region.cachedBlocks()
                                    + " bytes "
                                    + region.cachedBytes();
                        })
                .on(
                        "check",
                        words -> {
                            for (long handle : own) {
                                if (!Arrays.equals(
                                        region.get(handle),
                                        pattern(handle, region.sizeOf(handle)))) {
                                    throw new IllegalStateException("block " + handle + " changed");
                                }
                            }
                            return "ok";
                        })
                .serve();
    }
}
