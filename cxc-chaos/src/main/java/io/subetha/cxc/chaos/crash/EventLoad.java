package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.eventlog.EventStateLog;
import java.time.Duration;
import java.util.Random;

/**
 * Emits events (unique values, rising per worker) and now and then drains and folds them, logging
 * the published state it reads afterwards.
 */
final class EventLoad implements Load {

    private static final Duration DRAIN_WAIT = Duration.ofSeconds(5);

    private final EventStateLog<Long, Fold> log;
    private final History history;
    private long emitted;

    EventLoad(EventStateLog<Long, Fold> log, History history) {
        this.log = log;
        this.history = history;
    }

    @Override
    public Family family() {
        return Family.EVENTS;
    }

    @Override
    public void step(Random random) {
        if (random.nextDouble() < 0.8) {
            long event = Load.id(history.worker(), ++emitted);
            history.log(Family.EVENTS, "emit-begin", event);
            boolean committed = log.tryEmit(event);
            history.log(Family.EVENTS, committed ? "emitted" : "full", event);
            return;
        }
        history.log(Family.EVENTS, "drain-begin");
        int folded = log.drainAndFold(Fold::with, DRAIN_WAIT);
        Fold state = log.readCurrent();
        history.log(Family.EVENTS, "drained", folded, state.count(), state.hash());
    }
}
