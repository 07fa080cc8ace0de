package io.subetha.cxc.fanout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import io.subetha.cxc.testing.RawBody;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A taker waiting on the fan-out's doorbell ({@link PriorityFanout#claimHighest(int, Duration)}),
 * across JVMs: woken by a submit, not hung by a SIGKILLed waiter, bounded by its timeout; and the
 * attempts the file keeps per item, seen by every process and counting a claimer's death.
 */
class FanoutDoorbellTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final int CAP = 16;

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    ChildJvm child(String name, String... args) {
        return children.add(ChildJvm.start(name, FanoutChild.class, args));
    }

    PriorityFanout<Long> create(Path path) {
        return PriorityFanout.openOrCreate(
                path, new PriorityFanout.Settings<>(CAP, FixedCodec.INT64));
    }

    /** A child JVM waiting for an item, asleep on the doorbell: announced in the file. */
    ChildJvm asleepInAnotherJvm(PriorityFanout<Long> fanout, Path path) {
        ChildJvm waiter = child("waiter", "wait", path.toString(), "" + CAP);
        waiter.awaitPrefixed("ready", STEP);
        waiter.send("take 600000");
        awaitAnnounced(fanout);
        return waiter;
    }

    static void awaitAnnounced(PriorityFanout<Long> fanout) {
        await().atMost(STEP).until(() -> (int) fanout.describe().get("waiters") >= 1);
    }

    @Test
    void aWaiterInAnotherJvmIsWokenByASubmit() {
        Path path = dir.resolve("fanout.cxc");
        try (PriorityFanout<Long> fanout = create(path)) {
            ChildJvm waiter = asleepInAnotherJvm(fanout, path);
            fanout.submit(3, 42L);
            assertThat(waiter.awaitPrefixed("took ", STEP)).isEqualTo("42 attempt 1");
            assertThat(fanout.depth(3)).isZero();
        }
    }

    /** What {@link #writeWhileAnnounced} saw: whether the write rang, and what the taker took. */
    record Outcome(boolean announcedFirst, boolean rung, FanoutClaim<Long> taken) {}

    /**
     * Runs {@code write} on this thread while a taker waiting on {@code waiting} is held right
     * after it announced itself (before its last look), so the write must see the announcement;
     * then lets the taker go. A taker that took an item before it ever announced itself (its own
     * scan came due first) is not held: {@link Outcome#announcedFirst} false, and {@code write} not
     * run.
     */
    static Outcome writeWhileAnnounced(PriorityFanout<Long> waiting, Runnable write)
            throws Exception {
        CountDownLatch announced = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean rung = new AtomicBoolean();
        Thread writer = Thread.currentThread();
        CompletableFuture<FanoutClaim<Long>> taken = new CompletableFuture<>();
        Thread taker = new Thread(() -> taken.complete(waiting.claimHighest(1, STEP)), "taker");
        try (Interleaving.Installed hold =
                Interleaving.install(
                        point -> {
                            Thread t = Thread.currentThread();
                            if (point == Point.DOORBELL_ANNOUNCED
                                    && t == taker
                                    && announced.getCount() > 0) {
                                announced.countDown();
                                try {
                                    go.await();
                                } catch (InterruptedException e) {
                                    t.interrupt();
                                }
                            } else if (point == Point.DOORBELL_TAKEN && t == writer) {
                                rung.set(true);
                            }
                        })) {
            taker.start();
            await().atMost(STEP).until(() -> announced.getCount() == 0 || taken.isDone());
            if (announced.getCount() > 0) {
                return new Outcome(false, false, taken.get());
            }
            write.run();
            go.countDown();
            return new Outcome(true, rung.get(), taken.get(STEP.toSeconds(), TimeUnit.SECONDS));
        } finally {
            go.countDown();
            taker.join();
        }
    }

    @Test
    void aSubmitOrAReleaseRingsAnAnnouncedTaker() throws Exception {
        try (PriorityFanout<Long> fanout = create(dir.resolve("fanout.cxc"))) {
            Outcome outcome = writeWhileAnnounced(fanout, () -> fanout.submit(6, 61L));
            assertThat(outcome.announcedFirst()).isTrue(); // nothing to take before the submit
            assertThat(outcome.rung()).as("rung by the submit").isTrue();
            assertThat(outcome.taken().items()).containsExactly(61L);

            fanout.submit(1, 99L);
            try (PriorityFanout<Long> other = create(dir.resolve("fanout.cxc"))) {
                FanoutClaim<Long> claim = other.claimHighest(1);
                Outcome released = writeWhileAnnounced(fanout, claim::release);
                assertThat(released.announcedFirst()).isTrue();
                assertThat(released.rung()).as("rung by the release").isTrue();
                assertThat(released.taken().items()).containsExactly(99L);
                assertThat(released.taken().attempt(0)).isEqualTo(2);
            }
        }
    }

    @Test
    void aScanThatReturnsAClaimRingsAnAnnouncedTaker() throws Exception {
        Path path = dir.resolve("stale.cxc");
        PriorityFanout.Settings<Long> settings =
                new PriorityFanout.Settings<>(CAP, FixedCodec.INT64, Duration.ofNanos(1));
        try (PriorityFanout<Long> holder = PriorityFanout.openOrCreate(path, settings);
                PriorityFanout<Long> scanner = PriorityFanout.open(path, settings);
                PriorityFanout<Long> waiting = PriorityFanout.open(path, settings)) {
            for (long item = 10; ; item++) {
                holder.submit(1, item);
                waiting.scan(); // its own next scan is a scan interval away: the scanner's first
                FanoutClaim<Long> held = holder.claimHighest(1);
                // The holder is silent past its 1 ns grace at once: a scan returns its claim.
                Outcome scanned = writeWhileAnnounced(waiting, scanner::scan);
                assertThat(scanned.taken().items()).containsExactly(item);
                assertThat(scanned.taken().attempt(0)).isEqualTo(2);
                assertThat(held.ack()).isFalse();
                scanned.taken().ack();
                if (scanned.announcedFirst()) {
                    assertThat(scanned.rung()).as("rung by the scan").isTrue();
                    break;
                }
                // The taker's own scan came due first on a slow machine: again.
                assertThat(item).as("rounds whose taker scanned first").isLessThan(30);
            }
        }
    }

    @Test
    void aSigkilledAnnouncedWaiterLeavesNoHang() throws Exception {
        Path path = dir.resolve("fanout.cxc");
        try (PriorityFanout<Long> fanout = create(path)) {
            asleepInAnotherJvm(fanout, path).kill();
            // Its announcement may stay in the file: a submit rings a dead socket and goes on,
            // and a waiter here is woken by the next submit all the same.
            fanout.submit(1, 7L);
            assertThat(fanout.claimHighest(1, STEP).items()).containsExactly(7L);
            CompletableFuture<FanoutClaim<Long>> taken =
                    CompletableFuture.supplyAsync(() -> fanout.claimHighest(1, STEP));
            awaitAnnounced(fanout);
            fanout.submit(2, 8L);
            assertThat(taken.get(STEP.toSeconds(), TimeUnit.SECONDS).items()).containsExactly(8L);
        }
    }

    @Test
    void aWaitEndsEmptyAtItsTimeoutOrInterruption() {
        try (PriorityFanout<Long> fanout = create(dir.resolve("fanout.cxc"))) {
            FanoutClaim<Long> none = fanout.claimHighest(1, Duration.ofMillis(30));
            assertThat(none.isEmpty()).isTrue();
            assertThat(fanout.claimHighest(1, Duration.ZERO).isEmpty()).isTrue();
            Thread.currentThread().interrupt();
            try {
                assertThat(fanout.claimHighest(1, STEP).isEmpty()).isTrue();
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThatThrownBy(() -> fanout.claimHighest(1, Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("timeout must be 0 or more");
        }
    }

    @Test
    void aWaitWithoutLimitTakesTheItem() {
        try (PriorityFanout<Long> fanout = create(dir.resolve("fanout.cxc"))) {
            for (Duration forever :
                    List.of(Duration.ofSeconds(Long.MAX_VALUE), ChronoUnit.FOREVER.getDuration())) {
                fanout.submit(0, 9L);
                FanoutClaim<Long> claim = fanout.claimHighest(1, forever);
                assertThat(claim.items()).containsExactly(9L);
                claim.ack();
            }
        }
    }

    @Test
    void aCloseEndsAWaitWithAnError() throws Exception {
        PriorityFanout<Long> fanout = create(dir.resolve("fanout.cxc"));
        CompletableFuture<FanoutClaim<Long>> waiting =
                CompletableFuture.supplyAsync(() -> fanout.claimHighest(1, STEP));
        awaitAnnounced(fanout);
        fanout.close();
        assertThatThrownBy(() -> waiting.get(STEP.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalStateException.class);
    }

    @Test
    void aReturnedItemsAttemptsAreSeenByEveryProcessAndCountAKilledClaimer() {
        Path path = dir.resolve("fanout.cxc");
        try (PriorityFanout<Long> fanout = create(path)) {
            fanout.submit(4, 5L);
            FanoutClaim<Long> first = fanout.claimHighest(1);
            assertThat(first.attempt(0)).isEqualTo(1);
            assertThat(first.release()).isEqualTo(1);
            // Another process claims it: the second attempt, then dies holding it.
            ChildJvm holder = child("holder", "hold", path.toString(), "" + CAP, "1");
            assertThat(holder.awaitPrefixed("claimed ", STEP)).isEqualTo("5");
            assertThat(holder.ask("attempts")).isEqualTo("attempts 2");
            holder.kill();
            await().atMost(STEP).until(() -> fanout.scan().returnedClaims() == 1);
            FanoutClaim<Long> third = fanout.claimHighest(1);
            assertThat(third.items()).containsExactly(5L);
            assertThat(third.attempt(0)).isEqualTo(3);
            assertThat(third.ack()).isTrue();
            // The slot's next item starts afresh.
            for (long i = 0; i < CAP; i++) {
                fanout.submit(4, 100 + i);
                FanoutClaim<Long> next = fanout.claimHighest(1);
                assertThat(next.attempt(0)).isEqualTo(1);
                next.ack();
            }
        }
    }

    @Test
    void aStaleClaimersLateRaiseLeavesTheNextLapsCountAlone() {
        try (PriorityFanout<Long> fanout =
                PriorityFanout.openOrCreate(
                        dir.resolve("one.cxc"),
                        new PriorityFanout.Settings<>(1, FixedCodec.INT64))) {
            fanout.submit(0, 1L);
            fanout.claimHighest(1).ack(); // lap 0 claimed once
            fanout.submit(0, 2L);
            FanoutClaim<Long> lap1 = fanout.claimHighest(1);
            assertThat(lap1.attempt(0)).isEqualTo(1);
            // A claimer of lap 0 raising late finds lap 1's word and leaves it.
            int slot = PriorityFanoutDescriptor.SLOTS_OFFSET;
            AtomicBuffer raw = RawBody.of(dir.resolve("one.cxc"));
            assertThat(FanoutAttempts.raise(raw, slot, 0)).isEqualTo(1);
            assertThat(FanoutAttempts.of(raw, slot, 1)).isEqualTo(1);
            assertThat(lap1.release()).isEqualTo(1);
            assertThat(fanout.claimHighest(1).attempt(0)).isEqualTo(2);
        }
    }

    @Test
    void aLayoutTwoFileIsRefusedSayingToRecreateIt() throws Exception {
        Path path = dir.resolve("old.cxc");
        create(path).close();
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer header =
                    ByteBuffer.allocate(HeaderDescriptor.HEADER_LENGTH)
                            .order(ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            header.putInt(HeaderDescriptor.LAYOUT_VERSION_OFFSET, 2);
            header.putInt(HeaderDescriptor.CHECKSUM_OFFSET, FileHeader.checksumOf(header));
            channel.write(header.position(0), 0);
        }
        assertThatThrownBy(
                        () ->
                                PriorityFanout.TYPE.open(
                                        path,
                                        new PriorityFanout.Settings<>(CAP, FixedCodec.INT64),
                                        CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("layout version 2, but this CXC reads version 3")
                .hasMessageContaining("older CXC release")
                .hasMessageContaining("delete it");
    }
}
