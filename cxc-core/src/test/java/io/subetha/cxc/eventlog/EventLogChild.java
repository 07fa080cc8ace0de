package io.subetha.cxc.eventlog;

import static io.subetha.cxc.testing.ChildServer.daemon;
import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.ChildServer;
import io.subetha.cxc.testing.PointFreeze;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM for the event-log process tests: served by {@link ChildServer}.
 *
 * <pre>
 * open PATH CAPACITY          ok               (Tally events and state)
 * emit-loop PRODUCER LAST [from FIRST]   ok, then acked N (every 500 events, after emit
 *                             returned) ... done LAST; emits FIRST (default 1) .. LAST
 * drain-loop                  ok, then drains in a daemon thread until killed
 * pause-at POINT              ok               (SLOT_RESERVED or FOLD_COMPUTED: print, park forever)
 * emit PRODUCER N             emitted           (one event)
 * drain                       drained N
 * </pre>
 */
public final class EventLogChild {

    private static EventStateLog<Tally.Event, Tally> log;

    private EventLogChild() {}

    public static void main(String[] args) {
        new ChildServer()
                .on(
                        "open",
                        words -> {
                            log =
                                    EventStateLog.openOrCreate(
                                            Path.of(words[1]),
                                            new EventStateLog.Settings<>(
                                                    Integer.parseInt(words[2]),
                                                    Tally.Event.CODEC,
                                                    Tally.CODEC,
                                                    Tally.EMPTY));
                            return "ok";
                        })
                .on(
                        "emit-loop",
                        words -> {
                            int producer = Integer.parseInt(words[1]);
                            long count = Long.parseLong(words[2]);
                            long from = words.length > 4 ? Long.parseLong(words[4]) : 1;
                            daemon(
                                    "event-log-child",
                                    () -> {
                                        for (long n = from; n <= count; n++) {
                                            while (!log.tryEmit(Tally.Event.of(producer, n))) {
                                                LockSupport.parkNanos(
                                                        20_000); // full: the drainer lags
                                            }
                                            if (n % 500 == 0) {
                                                say("acked " + n);
                                            }
                                        }
                                        say("done " + count);
                                    });
                            return "ok";
                        })
                .on(
                        "drain-loop",
                        words -> {
                            daemon(
                                    "event-log-child",
                                    () -> {
                                        while (true) {
                                            if (log.drainAndFold(Tally::fold) == 0) {
                                                LockSupport.parkNanos(50_000);
                                            }
                                        }
                                    });
                            return "ok";
                        })
                .on(
                        "pause-at",
                        words -> {
                            Point point = Point.valueOf(words[1]);
                            PointFreeze.install(point, 1, "paused");
                            return "ok";
                        })
                .on(
                        "emit",
                        words -> {
                            log.emit(
                                    Tally.Event.of(
                                            Integer.parseInt(words[1]), Long.parseLong(words[2])));
                            return "emitted";
                        })
                .on(
                        "drain",
                        words -> {
                            return "drained " + log.drainAndFold(Tally::fold);
                        })
                .serve();
    }
}
