package io.subetha.cxc.docs.examples;

import io.subetha.cxc.codec.FixedCodec;
// docs:begin event-log-core
import io.subetha.cxc.eventlog.*;
import io.subetha.cxc.versioned.*;
// docs:end event-log-core
import java.nio.file.Path;
import java.time.Duration;

/** The event log, named readers, the versioned chain and the time-point tile in plain Java. */
class EventLogExample {

    void project(Object event) {}

    void eventLog(Path dir) throws Exception {
        // docs:begin event-log-core

        record Order(long id, long cents) {}
        record Totals(long orders, long cents) {}
        var orders = FixedCodec.record(Order.class);
        var totals = FixedCodec.record(Totals.class);

        // Any process emits; one drainer at a time folds; any process reads the folded state.
        try (var log = EventStateLog.openOrCreate(dir.resolve("orders.cxc"),
                new EventStateLog.Settings<>(4096, orders, totals, new Totals(0, 0)))) {
            log.emit(new Order(42, 1999));               // CxcCapacityException when 4096 are pending
            log.drainAndFold((t, o) -> new Totals(t.orders() + 1, t.cents() + o.cents()));
            Totals now = log.readCurrent();
            EventLogReader<Order> follower = log.reader(0); // follows without consuming
            follower.poll(o -> project(o));               // EventsOverwrittenException if it fell behind
        }

        // A named reader whose position outlives its process: a restart goes on where it stopped.
        try (var log = EventStateLog.openOrCreate(dir.resolve("orders.cxc"),
                new EventStateLog.Settings<>(4096, orders, totals, new Totals(0, 0)));
             var readers = NamedReaders.TYPE.openOrCreate(dir.resolve("orders.readers"),
                new NamedReaders.Settings(64));                // the most reader names, ever
             var seat = readers.claim("billing-1", log::oldestRetained); // ReaderNameTakenException if live
             var reader = log.reader(seat.position())) {
            reader.await(Duration.ofSeconds(1));          // sleeps on the log's doorbell
            reader.poll(o -> { project(o); seat.save(reader.position() + 1); });
        }

        // Versions 1, 2, 3... across processes; the last 64 readable back.
        try (var chain = SharedVersionedChain.openOrCreate(dir.resolve("config.cxc"),
                new SharedVersionedChain.Settings<>(64, totals))) {
            long v = chain.push(new Totals(1, 100));
            chain.readAt(v);                             // Optional; lookup(v).status() says why empty
        }

        // Values at times known in advance, looked up as of a time.
        try (var tile = SharedTimePointTile.openOrCreate(dir.resolve("minutes.cxc"),
                new SharedTimePointTile.Settings<>(0, 60_000, 60, totals))) {
            tile.record(120_000, new Totals(3, 300));    // a time that is not a point is an error
            tile.valueAt(150_000);                       // the latest recorded point at or before it
        }
        // docs:end event-log-core
    }
}
