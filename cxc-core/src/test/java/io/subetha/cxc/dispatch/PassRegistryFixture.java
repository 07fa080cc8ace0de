package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the pass registry's one-process tests share: handles on one file in a fresh directory,
 * closed after each test; a latch a gated handler waits on; and the file's words, planted as
 * another process would leave them.
 */
abstract class PassRegistryFixture {

    static final Duration LONG = Duration.ofSeconds(30);
    static final Duration HOUR = Duration.ofHours(1);

    /** The bound of every preemptive wait: a hang fails the test, it never blocks the suite. */
    static final Duration LIMIT = Duration.ofSeconds(60);

    static final long SELF = Pids.current();

    /** A PID no process can have (above every kernel's pid_max): always provably dead. */
    static final long DEAD_PID = Pids.MAX_PID - 1;

    /** Reclaims and owner checks every 5 ms. */
    static final PassWaiting QUICK_CHECKS =
            new PassWaiting(
                    Duration.ofNanos(20_000),
                    Duration.ZERO,
                    Duration.ofMillis(1),
                    Duration.ofMillis(5));

    @TempDir Path dir;

    final List<PassRegistry> opened = new ArrayList<>();

    /** What a gated handler waits for; counted down after each test. */
    final CountDownLatch release = new CountDownLatch(1);

    /** Counted down by a gated handler when it starts. */
    final CountDownLatch started = new CountDownLatch(1);

    @AfterEach
    void releaseAndCloseOpened() {
        release.countDown();
        opened.forEach(PassRegistry::close);
    }

    Path file() {
        return dir.resolve("calls.passes");
    }

    PassRegistry open(int maxPasses, int slots, int payload) {
        return open(maxPasses, slots, payload, PassWaiting.DEFAULT);
    }

    PassRegistry open(int maxPasses, int slots, int payload, PassWaiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        file(),
                        new PassRegistry.Settings(maxPasses, slots, payload).withWaiting(waiting));
        opened.add(registry);
        return registry;
    }

    static int entry(int index, int slots, int payload) {
        return ENTRIES_OFFSET + index * (int) entryStride(slots, payload);
    }

    static int slot(int entryOffset, int index, int payload) {
        return entryOffset + ENTRY_HEADER_LENGTH + index * (int) slotStride(payload);
    }

    /** Entry {@code entryOffset} bound to {@code passId} by {@code pid} under {@code key}. */
    static void bind(AtomicBuffer raw, int entryOffset, long passId, long pid, long key) {
        raw.setLongVolatile(entryOffset + PASS_ID_OFFSET, passId);
        raw.setLongVolatile(entryOffset + BOUND_KEY_OFFSET, key);
        raw.setLongVolatile(
                entryOffset + OWNER_RECORD_OFFSET + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(pid, key));
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> passes(PassRegistry registry) {
        return (List<Map<String, Object>>) registry.describe().get("passes");
    }

    static int busy(PassRegistry registry) {
        return (Integer) registry.describe().get("busySlots");
    }

    /** Blocks at once, never spins or yields; the ticker looks every {@code maxPark}. */
    static PassWaiting blockAtOnce(Duration maxPark, Duration ownerCheck) {
        return new PassWaiting(Duration.ZERO, Duration.ZERO, maxPark, ownerCheck);
    }

    /** The default spin, no yield, 1 ms parks; the owner checked every {@code ownerCheck}. */
    static PassWaiting checksEvery(Duration ownerCheck) {
        return new PassWaiting(
                Duration.ofNanos(20_000), Duration.ZERO, Duration.ofMillis(1), ownerCheck);
    }

    /** Awaitility polling every millisecond from the start (its default waits 100 ms first). */
    static ConditionFactory soon(Duration atMost) {
        return await().atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }
}
