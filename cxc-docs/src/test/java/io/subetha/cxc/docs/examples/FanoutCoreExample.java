package io.subetha.cxc.docs.examples;

// docs:begin fanout-core
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.*;       // PriorityFanout, FanoutClaim, ProgressTask
// docs:end fanout-core
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Priorities and progress across processes in plain Java. */
class FanoutCoreExample {

    private static final Logger log = LoggerFactory.getLogger(FanoutCoreExample.class);

    void process(List<Long> items) {}

    void fanout(long orderId) throws Exception {
        // docs:begin fanout-core

        // Priorities across processes: higher levels drain first, FIFO within a level.
        var fanout = PriorityFanout.openOrCreate(
                Path.of("/dev/shm/myapp/work.fanout"), new PriorityFanout.Settings<>(1024, FixedCodec.INT64));
        fanout.submit(7, orderId);                          // 0 .. MAX_PRIORITIES - 1 (8 levels)
        List<Long> now = fanout.drainHighest(32);           // at most once
        FanoutClaim<Long> claim = fanout.claimHighest(32);  // at least once
        process(claim.items());                             // claim.attempt(i): claims of item i so far
        FanoutClaim<Long> next = fanout.claimHighest(32, Duration.ofSeconds(5)); // asleep until a submit
        claim.ack();                                        // false if it was returned meanwhile

        // Progress any process can advance and any can read, without blocking each other.
        var task = ProgressTask.openOrCreate(
                Path.of("/dev/shm/myapp/import.progress"), new ProgressTask.Settings(10_000));
        task.advance(250);
        log.info("{}%", task.read().percent());
        task.complete();                                    // or task.fail("why")
        // docs:end fanout-core
    }
}
