package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcTimeoutException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * One worker JVM of a crash run: opens every family's file in the run's directory, prints {@code
 * ready}, waits for {@code go} on stdin (a warm spare starts early and joins when told), then runs
 * one thread per family until it is killed, logging each operation to its history. It never stops
 * on its own: the harness kills it; stdin's end (the harness gone) ends it too.
 *
 * <p>A wait that timed out on a stopped process, or a full file, is logged as {@code busy} and the
 * thread goes on; any other exception is logged as {@code error}, which the check counts as a
 * violation (a primitive threw what its contract does not allow here).
 *
 * <p>Usage: {@code CrashWorker <dir> <worker> <seed> <settings...>} ({@link CrashSettings#args()})
 */
public final class CrashWorker {

    private CrashWorker() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int worker = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        CrashSettings settings = CrashSettings.parse(Arrays.asList(args).subList(3, args.length));
        CrashFiles files = new CrashFiles(dir, settings);
        History history = History.open(dir, worker);
        List<Load> loads =
                List.of(
                        new SchedulerLoad(files.scheduler(), history),
                        new FanoutLoad(files.fanout(), history),
                        new EventLoad(files.events(), history),
                        new LeaseLoad(files.lease(), files.ledger(), settings.lease(), history),
                        new RegionLoad(files.region(), history));
        say("ready");
        CountDownLatch go = new CountDownLatch(1);
        Thread stdin =
                new Thread(
                        () -> {
                            try (BufferedReader in =
                                    new BufferedReader(
                                            new InputStreamReader(
                                                    System.in, StandardCharsets.UTF_8))) {
                                String line;
                                while ((line = in.readLine()) != null) {
                                    if (line.equals("go")) {
                                        go.countDown();
                                    }
                                }
                            } catch (IOException ignored) {
                                // treated as the end of stdin
                            }
                            Runtime.getRuntime().halt(0); // the harness is gone
                        },
                        "stdin");
        stdin.setDaemon(true);
        stdin.start();
        go.await();
        for (int i = 0; i < loads.size(); i++) {
            Load load = loads.get(i);
            Random random = new Random(seed * 31 + i);
            Thread t = new Thread(() -> run(load, random, settings, history), "load-" + i);
            t.start();
        }
        say("running");
    }

    private static void run(Load load, Random random, CrashSettings settings, History history) {
        long paceNanos = settings.pace().toNanos();
        while (true) {
            try {
                load.step(random);
            } catch (CxcTimeoutException | CxcCapacityException e) {
                history.log(load.family(), "busy", e.getClass().getSimpleName());
            } catch (RuntimeException | Error e) {
                history.log(load.family(), "error", e.getClass().getName(), words(e.getMessage()));
            }
            LockSupport.parkNanos((long) (random.nextDouble() * paceNanos));
        }
    }

    /** A message as one field of a history line. */
    static String words(@Nullable String message) {
        if (message == null) {
            return "-";
        }
        String one = message.replaceAll("\\s+", "_");
        return one.length() > 300 ? one.substring(0, 300) : one;
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
