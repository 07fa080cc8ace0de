package io.subetha.cxc.versioned;

import static io.subetha.cxc.testing.ChildServer.daemon;
import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.testing.ChildServer;
import java.nio.file.Path;

/**
 * A child JVM for the versioned process tests: served by {@link ChildServer}.
 *
 * <pre>
 * chain PATH RETAINED            ok
 * tile PATH START STEP COUNT     ok
 * push-loop PRODUCER COUNT       ok, then pushed N (every 100) ... done COUNT   (daemon thread)
 * record-loop PRODUCER COUNT     ok, then done COUNT: records (PRODUCER, n) at every point, round
 * stall                          ok   (the next write parks after half a value, saying "stalled")
 * push PRODUCER N                pushed V
 * record TIME PRODUCER N         recorded
 * </pre>
 */
public final class VersionedChild {

    private static SharedVersionedChain<Sample> chain;
    private static SharedTimePointTile<Sample> tile;

    private VersionedChild() {}

    public static void main(String[] args) {
        Sample.StallingCodec.onStall = () -> say("stalled");
        new ChildServer()
                .on(
                        "chain",
                        w -> {
                            chain =
                                    SharedVersionedChain.openOrCreate(
                                            Path.of(w[1]),
                                            new SharedVersionedChain.Settings<>(
                                                    Integer.parseInt(w[2]),
                                                    new Sample.StallingCodec()));
                            return "ok";
                        })
                .on(
                        "tile",
                        w -> {
                            tile =
                                    SharedTimePointTile.openOrCreate(
                                            Path.of(w[1]),
                                            new SharedTimePointTile.Settings<>(
                                                    Long.parseLong(w[2]),
                                                    Long.parseLong(w[3]),
                                                    Integer.parseInt(w[4]),
                                                    new Sample.StallingCodec()));
                            return "ok";
                        })
                .on("push-loop", VersionedChild::pushLoop)
                .on("record-loop", VersionedChild::recordLoop)
                .on(
                        "stall",
                        w -> {
                            Sample.StallingCodec.stall = true;
                            return "ok";
                        })
                .on(
                        "push",
                        w ->
                                "pushed "
                                        + chain.push(
                                                Sample.of(
                                                        Long.parseLong(w[1]),
                                                        Long.parseLong(w[2]))))
                .on(
                        "record",
                        w -> {
                            tile.record(
                                    Long.parseLong(w[1]),
                                    Sample.of(Long.parseLong(w[2]), Long.parseLong(w[3])));
                            return "recorded";
                        })
                .serve();
    }

    private static String pushLoop(String[] w) {
        long producer = Long.parseLong(w[1]);
        long count = Long.parseLong(w[2]);
        daemon(
                "versioned-child",
                () -> {
                    for (long n = 1; n <= count; n++) {
                        long v = chain.push(Sample.of(producer, n));
                        if (n % 100 == 0) {
                            say("pushed " + v);
                        }
                    }
                    say("done " + count);
                });
        return "ok";
    }

    private static String recordLoop(String[] w) {
        long producer = Long.parseLong(w[1]);
        long count = Long.parseLong(w[2]);
        daemon(
                "versioned-child",
                () -> {
                    for (long n = 1; n <= count; n++) {
                        for (int p = 0; p < tile.count(); p++) {
                            tile.record(tile.pointTime(p), Sample.of(producer, n));
                        }
                    }
                    say("done " + count);
                });
        return "ok";
    }
}
