package io.subetha.cxc.liveness;

import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.ChildServer;
import io.subetha.cxc.testing.PointFreeze;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * A child JVM for the liveness process tests: served by {@link ChildServer}.
 *
 * <pre>
 * heartbeat-open PATH CAPACITY   ok
 * register                       slot N
 * beat-loop MILLIS               ok       (daemon: tick the epoch if due, beat, every MILLIS)
 * status SLOT GRACE              status FREE|LIVE|STALE|DEAD
 * watchdog-open PATH             ok
 * assign FROM COUNT              ok       (work ids FROM..FROM+COUNT-1 to this process's slot)
 * scan-at NANOTIME               moved N ID>FROMSLOT,...   (scans at System.nanoTime() NANOTIME)
 * barrier-open PATH CAPACITY     ok
 * join                           epoch E
 * run-phases COUNT LOG WORKMICROS   progress P (every 10 phases) ... done NANOS
 * join-epoch-advance COUNT       epoch E  (the next run-phases starts COUNT epochs later)
 * await-epoch EPOCH MILLIS       awaiting (daemon: awaits EPOCH, then says released E | failed X)
 * freeze-ring                    armed    (the next ring's thread says frozen DOORBELL_TAKEN, stops)
 * </pre>
 *
 * {@code run-phases} appends {@code start <phase> <pid>} and {@code end <phase> <pid>} lines to LOG
 * ({@code -} for none) around each phase, each with one O_APPEND write, then awaits the barrier.
 */
public final class LivenessChild {

    private static final long PID = ProcessHandle.current().pid();

    private static HeartbeatTable table;
    private static FailoverWatchdog watchdog;
    private static EpochBarrier barrier;
    private static int slot = -1;
    private static int joinEpoch;

    private LivenessChild() {}

    public static void main(String[] args) {
        new ChildServer()
                .on(
                        "heartbeat-open",
                        words -> {
                            table =
                                    HeartbeatTable.TYPE.open(
                                            Path.of(words[1]),
                                            new HeartbeatTable.Settings(
                                                    Integer.parseInt(words[2])));
                            return "ok";
                        })
                .on(
                        "register",
                        words -> {
                            slot = table.register(PID);
                            return "slot " + slot;
                        })
                .on(
                        "beat-loop",
                        words -> {
                            startBeatLoop(Long.parseLong(words[1]));
                            return "ok";
                        })
                .on(
                        "status",
                        words -> {
                            return "status "
                                    + table.status(
                                            Integer.parseInt(words[1]), Long.parseLong(words[2]));
                        })
                .on(
                        "watchdog-open",
                        words -> {
                            watchdog =
                                    FailoverWatchdog.openOrCreate(
                                            Path.of(words[1]),
                                            table,
                                            FailoverWatchdog.TYPE
                                                    .recordedSettings(
                                                            Path.of(words[1]),
                                                            io.subetha.cxc.mmf.CxcFileOptions
                                                                    .defaults())
                                                    .workPerSlot(),
                                            io.subetha.cxc.mmf.CxcFileOptions.defaults());
                            return "ok";
                        })
                .on(
                        "assign",
                        words -> {
                            long from = Long.parseLong(words[1]);
                            long count = Long.parseLong(words[2]);
                            for (long id = from; id < from + count; id++) {
                                watchdog.assign(slot, id);
                            }
                            return "ok";
                        })
                .on(
                        "scan-at",
                        words -> {
                            long at = Long.parseLong(words[1]);
                            // Sleep until just before, then spin: a long spin would starve the beat
                            // loops of
                            // two cores and make the scanners look stale to each other.
                            while (at - System.nanoTime() > 2_000_000) {
                                LockSupport.parkNanos(1_000_000);
                            }
                            while (System.nanoTime() - at < 0) {
                                Thread.onSpinWait();
                            }
                            ReclaimReport report = watchdog.scan();
                            return "moved "
                                    + report.moves().size()
                                    + " "
                                    + report.moves().stream()
                                            .map(m -> m.workId() + ">" + m.fromSlot())
                                            .collect(Collectors.joining(","));
                        })
                .on(
                        "barrier-open",
                        words -> {
                            barrier =
                                    EpochBarrier.TYPE.open(
                                            Path.of(words[1]),
                                            new EpochBarrier.Settings(Integer.parseInt(words[2])));
                            return "ok";
                        })
                .on(
                        "join",
                        words -> {
                            joinEpoch = barrier.join();
                            return "epoch " + joinEpoch;
                        })
                .on(
                        "join-epoch-advance",
                        words -> {
                            // after run-phases COUNT: the next run starts COUNT later
                            joinEpoch += Integer.parseInt(words[1]);
                            return "epoch " + joinEpoch;
                        })
                .on(
                        "await-epoch",
                        words -> {
                            int epoch = Integer.parseInt(words[1]);
                            Duration timeout = Duration.ofMillis(Long.parseLong(words[2]));
                            ChildServer.daemon(
                                    "barrier-waiter",
                                    () -> {
                                        try {
                                            barrier.await(epoch, timeout);
                                            say("released " + barrier.currentEpoch());
                                        } catch (RuntimeException e) {
                                            say("failed " + e.getClass().getSimpleName());
                                        }
                                    });
                            return "awaiting";
                        })
                .on(
                        "freeze-ring",
                        words -> {
                            PointFreeze.install(Point.DOORBELL_TAKEN, 1, "frozen");
                            return "armed";
                        })
                .on(
                        "run-phases",
                        words -> {
                            return runPhases(
                                    Integer.parseInt(words[1]), words[2], Long.parseLong(words[3]));
                        })
                .serve();
    }

    private static void startBeatLoop(long millis) {
        Duration interval = Duration.ofMillis(millis);
        Thread beater =
                new Thread(
                        () -> {
                            while (true) {
                                table.tickGlobalEpochIfDue(interval);
                                table.beat(slot);
                                LockSupport.parkNanos(interval.toNanos());
                            }
                        },
                        "beat-loop");
        beater.setDaemon(true);
        beater.start();
    }

    private static String runPhases(int count, String log, long workMicros) throws IOException {
        FileChannel channel =
                log.equals("-")
                        ? null
                        : FileChannel.open(
                                Path.of(log),
                                StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE,
                                StandardOpenOption.APPEND);
        try {
            long started = System.nanoTime();
            int epoch = joinEpoch;
            for (int phase = 0; phase < count; phase++) {
                append(channel, "start " + phase + " " + PID + "\n");
                if (workMicros > 0) {
                    LockSupport.parkNanos(workMicros * 1_000); // the phase's simulated work
                }
                append(channel, "end " + phase + " " + PID + "\n");
                barrier.await(epoch, Duration.ofSeconds(30));
                epoch++;
                if ((phase + 1) % 10 == 0) {
                    say("progress " + (phase + 1));
                }
            }
            return "done " + (System.nanoTime() - started);
        } finally {
            if (channel != null) {
                channel.close();
            }
        }
    }

    private static void append(FileChannel channel, String line) throws IOException {
        if (channel != null) {
            // One write(2) on an O_APPEND descriptor: lines of all children never interleave, and
            // the file's order is the order in which the writes happened.
            ByteBuffer bytes = ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII));
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        }
    }
}
