package io.subetha.cxc.wake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.eventlog.EventLogReader;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a SIGKILL leaves on a doorbell, over an event log shared by real processes: a waiter killed
 * while announced (its announcement, its slot, its socket file), a ringer killed between its take
 * and its ring. Nobody hangs or fails, the next waiter is woken, and every wait ends by its
 * timeout.
 */
class DoorbellCrashTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final String HOUR_MS = Long.toString(TimeUnit.HOURS.toMillis(1));

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    ChildJvm child(String name, Path log) {
        ChildJvm child =
                children.add(
                        ChildJvm.start(name, DoorbellChild.class)
                                .eventsAre(
                                        line ->
                                                line.startsWith("waited")
                                                        || line.startsWith("frozen")));
        child.ask("open " + log);
        return child;
    }

    /** A child that waits on a raw doorbell file: its one event is {@code waited}. */
    ChildJvm rawWaiter(String name) {
        return children.add(
                ChildJvm.start(name, DoorbellChild.class)
                        .eventsAre(line -> line.startsWith("waited")));
    }

    static int sleepingReaders(EventStateLog<?, ?> log) {
        return (Integer) log.describe().get("sleepingReaders");
    }

    static List<Path> sockets(Path log) throws IOException {
        Path wake = Doorbell.socketDirectory(log);
        if (!Files.isDirectory(wake)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(wake)) {
            return files.toList();
        }
    }

    @Test
    void aRingCrossesProcessesWithoutTheSafetyLook() throws Exception {
        Path path = dir.resolve("raw.bell");
        io.subetha.cxc.mmf.AtomicBuffer raw = DoorbellChild.mapRaw(path);
        Doorbell doorbell = new Doorbell(raw, 0, path);
        ChildJvm waiter = rawWaiter("raw-waiter");
        for (int round = 1; round <= 5; round++) {
            raw.setLongVolatile(DoorbellChild.FLAG, 0);
            waiter.ask("bell-wait " + path);
            await().atMost(STEP).until(() -> doorbell.announcedCount() == 1);
            raw.setLongRelease(DoorbellChild.FLAG, round);
            doorbell.ringIfAnnounced(); // its only way to wake: its safety look is an hour
            assertThat(waiter.awaitPrefixed("waited ", STEP)).isEqualTo("true");
        }
    }

    @Test
    void aTargetedRingCrossesProcessesToASlotPastTheDefaultRegionAndAKilledWaitersSlotIsReused()
            throws Exception {
        Path path = dir.resolve("wide.bell");
        io.subetha.cxc.mmf.AtomicBuffer raw = DoorbellChild.mapRaw(path, DoorbellChild.WIDE_FLAG);
        Doorbell doorbell = new Doorbell(raw, 0, DoorbellDescriptor.MAX_SLOTS, path);
        ChildJvm killed = rawWaiter("wide-killed");
        int slot = Integer.parseInt(killed.ask("wide-bell-wait " + path + " 40").split(" ")[1]);
        assertThat(slot).as("past the default region's slots").isEqualTo(40);
        await().atMost(STEP).until(() -> doorbell.announcedCount() == 1);
        killed.kill();
        assertThat(doorbell.ringIfAnnounced(slot))
                .as("a dead waiter's announcement: taken, its ring refused and dropped")
                .isTrue();

        ChildJvm waiter = rawWaiter("wide-waiter");
        // 23 more fill the free slots: its waiter's slot is one the killed process held.
        int again = Integer.parseInt(waiter.ask("wide-bell-wait " + path + " 23").split(" ")[1]);
        assertThat(again).as("a dead waiter's slot, claimed again").isLessThanOrEqualTo(40);
        await().atMost(STEP).until(() -> doorbell.announcedCount() == 1);
        raw.setLongRelease(DoorbellChild.WIDE_FLAG, 1);
        for (int other = 0; other < DoorbellDescriptor.MAX_SLOTS; other++) {
            if (other != again) {
                assertThat(doorbell.ringIfAnnounced(other)).isFalse();
            }
        }
        assertThat(doorbell.announcedCount()).as("rung nobody else's slot").isEqualTo(1);
        assertThat(doorbell.ringIfAnnounced(again)).isTrue(); // its only way: an hour's look
        assertThat(waiter.awaitPrefixed("waited ", STEP)).isEqualTo("true");
    }

    @Test
    void aWaiterKilledWhileAnnouncedLeavesNothingThatHangsTheRingerOrTheNextWaiter()
            throws Exception {
        Path path = dir.resolve("log.cxc");
        try (EventStateLog<Long, Long> log = DoorbellChild.open(path)) {
            ChildJvm killed = child("killed-waiter", path);
            killed.ask("wait 0 " + HOUR_MS);
            await().atMost(STEP).until(() -> sleepingReaders(log) == 1);
            List<Path> left = sockets(path);
            assertThat(left).hasSize(1);
            killed.kill();

            log.emit(1L); // rings a dead waiter: refused, dropped
            assertThat(sleepingReaders(log)).isZero();
            assertThat(left.get(0)).as("a dead process's socket, until the next bind").exists();

            ChildJvm next = child("next-waiter", path);
            next.ask("wait 1 " + HOUR_MS);
            await().atMost(STEP).until(() -> sleepingReaders(log) == 1);
            assertThat(left.get(0)).as("deleted by the next waiter's bind").doesNotExist();
            log.emit(2L);
            assertThat(next.awaitPrefixed("waited ", STEP)).isEqualTo("true");

            next.ask("wait 2 200");
            assertThat(next.awaitPrefixed("waited ", STEP))
                    .as("nothing written: the wait ends at its timeout")
                    .isEqualTo("false");
        }
    }

    @Test
    void aRingerKilledBetweenItsTakeAndItsRingCostsTheWaiterOneSafetyLook() throws Exception {
        Path path = dir.resolve("log.cxc");
        try (EventStateLog<Long, Long> log = DoorbellChild.open(path);
                EventLogReader<Long> reader = log.reader(0).waitingWith(WaitPhases.SLEEP_AT_ONCE)) {
            CompletableFuture<Boolean> woken =
                    CompletableFuture.supplyAsync(() -> reader.await(Duration.ofHours(1)));
            await().atMost(STEP).until(() -> sleepingReaders(log) == 1);

            ChildJvm ringer = child("ringer", path);
            ringer.ask("freeze-ring 7");
            ringer.awaitPrefixed("frozen ", STEP);
            assertThat(sleepingReaders(log)).as("taken by the frozen ringer").isZero();
            ringer.kill();

            assertThat(woken.get(STEP.toSeconds(), TimeUnit.SECONDS)).isTrue();
            StringBuilder seen = new StringBuilder();
            assertThat(reader.poll(e -> seen.append(e))).isEqualTo(1);
            assertThat(seen).hasToString("7");

            ChildJvm writer = child("writer", path);
            CompletableFuture<Boolean> next =
                    CompletableFuture.supplyAsync(() -> reader.await(Duration.ofHours(1)));
            await().atMost(STEP).until(() -> sleepingReaders(log) == 1);
            writer.ask("emit 8");
            assertThat(next.get(STEP.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }
    }
}
