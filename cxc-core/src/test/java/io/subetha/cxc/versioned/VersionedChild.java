package io.subetha.cxc.versioned;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A child JVM for the versioned process tests: one command per stdin line, answers on stdout, halts
 * on stdin EOF. Every failure is answered {@code error <message>}.
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

    public static void main(String[] args) throws IOException {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Sample.StallingCodec.onStall = () -> say("stalled");
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split(" ");
            try {
                say(execute(w));
            } catch (RuntimeException e) {
                say("error " + e);
            }
        }
        Runtime.getRuntime().halt(0);
    }

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static String execute(String[] w) {
        switch (w[0]) {
            case "chain":
                chain =
                        SharedVersionedChain.openOrCreate(
                                Path.of(w[1]),
                                new SharedVersionedChain.Settings<>(
                                        Integer.parseInt(w[2]), new Sample.StallingCodec()));
                return "ok";
            case "tile":
                tile =
                        SharedTimePointTile.openOrCreate(
                                Path.of(w[1]),
                                new SharedTimePointTile.Settings<>(
                                        Long.parseLong(w[2]),
                                        Long.parseLong(w[3]),
                                        Integer.parseInt(w[4]),
                                        new Sample.StallingCodec()));
                return "ok";
            case "push-loop":
                {
                    long producer = Long.parseLong(w[1]);
                    long count = Long.parseLong(w[2]);
                    daemon(
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
            case "record-loop":
                {
                    long producer = Long.parseLong(w[1]);
                    long count = Long.parseLong(w[2]);
                    daemon(
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
            case "stall":
                Sample.StallingCodec.stall = true;
                return "ok";
            case "push":
                return "pushed "
                        + chain.push(Sample.of(Long.parseLong(w[1]), Long.parseLong(w[2])));
            case "record":
                tile.record(
                        Long.parseLong(w[1]),
                        Sample.of(Long.parseLong(w[2]), Long.parseLong(w[3])));
                return "recorded";
            default:
                throw new IllegalArgumentException("unknown command " + w[0]);
        }
    }

    private static void daemon(Runnable body) {
        Thread thread =
                new Thread(
                        () -> {
                            try {
                                body.run();
                            } catch (RuntimeException e) {
                                say("error " + e);
                            }
                        },
                        "versioned-child");
        thread.setDaemon(true);
        thread.start();
    }
}
