package io.subetha.cxc.docs.examples;

// docs:begin liveness
import io.subetha.cxc.liveness.*;
// docs:end liveness
import io.subetha.cxc.mmf.CxcFileOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Heartbeats, a watchdog and a barrier in plain Java. */
class LivenessExample {

    private static final Logger log = LoggerFactory.getLogger(LivenessExample.class);

    void runPhase(int epoch) {}

    boolean running() {
        return false;
    }

    void liveness(long orderId) throws Exception {
        // docs:begin liveness

        long me = ProcessHandle.current().pid();
        Path dir = Path.of("/dev/shm/myapp");

        // Who is alive: one heartbeat slot per process.
        HeartbeatTable table =
                HeartbeatTable.openOrCreate(dir.resolve("heartbeat.cxc"), new HeartbeatTable.Settings(16));
        int slot = table.register(me);                 // claims a free (or dead/stale) slot by CAS
        table.tickGlobalEpochIfDue(Duration.ofMillis(100));
        table.beat(slot);                              // on your cadence
        table.scan().forEach(s -> log.info("slot {} pid {} lag {}", s.slot(), s.pid(), s.lag()));

        // What the dead leave behind: work ids owned per slot, moved to live slots on scan.
        FailoverWatchdog watchdog = FailoverWatchdog.openOrCreate(
                dir.resolve("watchdog.cxc"), table, 64, CxcFileOptions.defaults());
        watchdog.assign(slot, orderId);
        ReclaimReport report = watchdog.scan();        // no thread of its own: call it on your cadence
        report.moves().forEach(m -> log.info("work {} moved {} -> {}", m.workId(), m.fromSlot(), m.toSlot()));

        // Phases every process finishes together.
        try (EpochBarrier barrier =
                EpochBarrier.openOrCreate(dir.resolve("barrier.cxc"), new EpochBarrier.Settings(8))) {
            int epoch = barrier.join();
            for (; running(); epoch++) {
                runPhase(epoch);
                barrier.await(epoch, Duration.ofSeconds(5)); // times out naming who has not arrived
            }
        }
        table.unregister(slot);                        // clean exit: peers see it at once
        // docs:end liveness
    }
}
