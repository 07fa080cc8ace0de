package io.subetha.cxc.wake;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.EventLogReader;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.ChildServer;
import io.subetha.cxc.testing.PointFreeze;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * A child JVM that waits on an event log's doorbell or rings it, for {@link DoorbellCrashTest}.
 * Events it says on its own: {@code waited <true|false>}, {@code frozen <POINT>}.
 */
public final class DoorbellChild {

    private static EventStateLog<Long, Long> log;

    /** In a raw doorbell file: the word a raw waiter waits for, after the region. */
    static final int FLAG = DoorbellDescriptor.LENGTH;

    /** In a raw doorbell file of {@link DoorbellDescriptor#MAX_SLOTS}: its flag word. */
    static final int WIDE_FLAG = DoorbellDescriptor.length(DoorbellDescriptor.MAX_SLOTS);

    private DoorbellChild() {}

    /** A file of a doorbell region and a flag word, mapped. */
    static AtomicBuffer mapRaw(Path path) throws java.io.IOException {
        return mapRaw(path, FLAG);
    }

    /** A file of a doorbell region and a flag word at {@code flag}, mapped. */
    static AtomicBuffer mapRaw(Path path, int flag) throws java.io.IOException {
        try (FileChannel channel =
                FileChannel.open(
                        path,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE)) {
            return new AtomicBuffer(
                    channel.map(FileChannel.MapMode.READ_WRITE, 0, flag + 64)
                            .order(ByteOrder.LITTLE_ENDIAN));
        }
    }

    static EventStateLog<Long, Long> open(Path path) {
        return EventStateLog.openOrCreate(
                path, new EventStateLog.Settings<>(64, FixedCodec.INT64, FixedCodec.INT64, 0L));
    }

    public static void main(String[] args) {
        new ChildServer()
                .on(
                        "open",
                        w -> {
                            log = open(Path.of(w[1]));
                            return "opened";
                        })
                .on(
                        "wait",
                        w -> {
                            EventLogReader<Long> reader =
                                    log.reader(Long.parseLong(w[1]))
                                            .waitingWith(WaitPhases.SLEEP_AT_ONCE);
                            Duration timeout = Duration.ofMillis(Long.parseLong(w[2]));
                            ChildServer.daemon(
                                    "waiter",
                                    () -> ChildServer.say("waited " + reader.await(timeout)));
                            return "waiting";
                        })
                .on(
                        "emit",
                        w -> {
                            log.emit(Long.parseLong(w[1]));
                            return "emitted";
                        })
                .on(
                        "bell-wait",
                        w -> {
                            AtomicBuffer raw = mapRaw(Path.of(w[1]));
                            DoorbellWaiter waiter =
                                    new Doorbell(raw, 0, Path.of(w[1]))
                                            .waiter(
                                                    WaitPhases.SLEEP_AT_ONCE,
                                                    DoorbellProtocolTest.NEVER,
                                                    DoorbellProtocolTest.NEVER);
                            ChildServer.daemon(
                                    "raw-waiter",
                                    () ->
                                            ChildServer.say(
                                                    "waited "
                                                            + waiter.await(
                                                                    () ->
                                                                            raw.getLongAcquire(FLAG)
                                                                                    != 0,
                                                                    Duration.ofHours(1))));
                            return "waiting";
                        })
                .on(
                        "wide-bell-wait",
                        w -> {
                            // A waiter of a 64-slot doorbell that first holds w[2] slots, so
                            // that it sleeps past the default region's slots.
                            AtomicBuffer raw = mapRaw(Path.of(w[1]), WIDE_FLAG);
                            Doorbell doorbell =
                                    new Doorbell(
                                            raw, 0, DoorbellDescriptor.MAX_SLOTS, Path.of(w[1]));
                            for (int i = Integer.parseInt(w[2]); i > 0; i--) {
                                doorbell.waiter(WaitPhases.SLEEP_AT_ONCE).slot();
                            }
                            DoorbellWaiter waiter =
                                    doorbell.waiter(
                                            WaitPhases.SLEEP_AT_ONCE,
                                            DoorbellProtocolTest.NEVER,
                                            DoorbellProtocolTest.NEVER);
                            int slot = waiter.slot();
                            ChildServer.daemon(
                                    "wide-waiter",
                                    () ->
                                            ChildServer.say(
                                                    "waited "
                                                            + waiter.await(
                                                                    () ->
                                                                            raw.getLongAcquire(
                                                                                            WIDE_FLAG)
                                                                                    != 0,
                                                                    Duration.ofHours(1))));
                            return "slot " + slot;
                        })
                .on(
                        "freeze-ring",
                        w -> {
                            PointFreeze.install(Point.DOORBELL_TAKEN, 1, "frozen");
                            ChildServer.daemon("ringer", () -> log.emit(Long.parseLong(w[1])));
                            return "armed";
                        })
                .serve();
    }
}
