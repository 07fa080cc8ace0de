package io.subetha.cxc.resolution;

import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.testing.ChildServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM for the async pointer's process tests: served by {@link ChildServer}.
 *
 * <pre>
 * open PATH                          ok            (a pointer of INT64)
 * fetch COUNTFILE MODE TIMEOUTMS     value N       getOrFetch; the fetch appends this PID to
 *                                                  COUNTFILE (one O_APPEND write) and returns the
 *                                                  number of lines in it; MODE slow: it takes
 *                                                  300 ms; hang-at-K: the fetch that writes line K
 *                                                  never returns (the test kills it)
 * open-pair PATH                     ok            (a pointer of Pair)
 * churn                              churning      a daemon thread resets and re-fetches forever
 * </pre>
 */
public final class AsyncPointerChild {

    /** A value whose halves must agree: a torn read shows as {@code check != ~value}. */
    public record Pair(long value, long check) {
        static Pair of(long value) {
            return new Pair(value, ~value);
        }

        boolean whole() {
            return check == ~value;
        }
    }

    static final FixedCodec<Pair> PAIR = FixedCodec.record(Pair.class);

    private static final long PID = ProcessHandle.current().pid();
    private static SharedAsyncPointer<Long> pointer;
    private static SharedAsyncPointer<Pair> pairs;

    private AsyncPointerChild() {}

    public static void main(String[] args) {
        new ChildServer()
                .on(
                        "open",
                        words -> {
                            pointer =
                                    SharedAsyncPointer.openOrCreate(
                                            Path.of(words[1]),
                                            new SharedAsyncPointer.Settings<>(FixedCodec.INT64));
                            return "ok";
                        })
                .on(
                        "fetch",
                        words -> {
                            Path countFile = Path.of(words[1]);
                            String mode = words[2];
                            Duration timeout = Duration.ofMillis(Long.parseLong(words[3]));
                            long value =
                                    pointer.getOrFetch(
                                            () -> countedFetch(countFile, mode), timeout);
                            return "value " + value;
                        })
                .on(
                        "open-pair",
                        words -> {
                            pairs =
                                    SharedAsyncPointer.openOrCreate(
                                            Path.of(words[1]),
                                            new SharedAsyncPointer.Settings<>(PAIR));
                            return "ok";
                        })
                .on(
                        "churn",
                        words -> {
                            Thread churn =
                                    new Thread(
                                            () -> {
                                                long n = 0;
                                                while (true) {
                                                    long next = ++n;
                                                    pairs.reset();
                                                    Pair got =
                                                            pairs.getOrFetch(
                                                                    () ->
                                                                            Pair.of(
                                                                                    PID * 1_000_000
                                                                                            + next),
                                                                    Duration.ofSeconds(30));
                                                    if (!got.whole()) {
                                                        say("torn " + got);
                                                    }
                                                }
                                            },
                                            "churn");
                            churn.setDaemon(true);
                            churn.start();
                            return "churning";
                        })
                .serve();
    }

    static long countedFetch(Path countFile, String mode) {
        try {
            Files.writeString(
                    countFile,
                    PID + "\n",
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND,
                    StandardOpenOption.WRITE);
            long count = Files.readAllLines(countFile).size();
            if (mode.equals("slow")) {
                LockSupport.parkNanos(Duration.ofMillis(300).toNanos()); // a slow source
            } else if (mode.equals("hang-at-" + count)) {
                while (true) {
                    LockSupport.park(); // the test SIGKILLs this process mid-fetch
                }
            }
            return count;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
