package io.subetha.cxc.eventlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event log across real JVMs on one file: several producer processes and a drainer process,
 * SIGKILLs mid-run, mid-emit (between reserving and committing) and mid-fold (between folding and
 * publishing).
 *
 * <p>{@code -Dcxc.eventlog.events=100000} sets the events each producer emits (default 20,000);
 * {@code -Dcxc.eventlog.kills=N} the random kills of the kill loop (default 4).
 */
class EventStateLogProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final long EVENTS = Long.getLong("cxc.eventlog.events", 20_000);
    static final int KILLS = Integer.getInteger("cxc.eventlog.kills", 4);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    ChildJvm child(String name, Path log, int capacity) {
        ChildJvm child =
                children.add(
                        ChildJvm.start(name, EventLogChild.class)
                                .eventsAre(line -> line.startsWith("acked")));
        child.ask("open " + log + " " + capacity);
        return child;
    }

    static EventStateLog<Tally.Event, Tally> open(Path path, int capacity) {
        return EventStateLog.openOrCreate(
                path,
                new EventStateLog.Settings<>(
                        capacity, Tally.Event.CODEC, Tally.CODEC, Tally.EMPTY));
    }

    /** Drains here until everything emitted is folded. */
    static Tally drainAll(EventStateLog<Tally.Event, Tally> log) {
        await().atMost(STEP)
                .until(
                        () -> {
                            log.drainAndFold(Tally::fold);
                            return log.foldedCount() == log.emittedCount();
                        });
        return log.readCurrent();
    }

    @Test
    void threeProducerProcessesAndADrainerProcessFoldEveryEventOnceInProducerOrder() {
        Path path = dir.resolve("log.cxc");
        try (var log = open(path, 1024)) {
            List<ChildJvm> producers = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                producers.add(child("producer-" + p, path, 1024));
            }
            ChildJvm drainer = child("drainer", path, 1024);
            drainer.ask("drain-loop");
            // A follower in this process sees the others' events as they come, each producer's
            // in its order (it may fall behind on a loaded machine: told so, it seeks on).
            long[] lastSeen = new long[4];
            long[] seen = new long[2]; // events, events out of order
            Thread follower =
                    new Thread(
                            () -> {
                                EventLogReader<Tally.Event> reader = log.reader(0);
                                while (!Thread.currentThread().isInterrupted()) {
                                    try {
                                        reader.poll(
                                                e -> {
                                                    int p = (int) e.producer();
                                                    seen[1] += e.n() > lastSeen[p] ? 0 : 1;
                                                    lastSeen[p] = e.n();
                                                    seen[0]++;
                                                });
                                    } catch (EventsOverwrittenException behind) {
                                        reader.seek(behind.firstAvailable());
                                    }
                                    Thread.onSpinWait();
                                }
                            },
                            "follower");
            follower.start();
            for (int p = 0; p < 3; p++) {
                producers.get(p).ask("emit-loop " + p + " " + EVENTS);
            }
            try {
                for (ChildJvm producer : producers) {
                    producer.awaitPrefixed("done ", STEP);
                }
            } finally {
                follower.interrupt();
            }
            join(follower);
            assertThat(seen[0]).as("events the follower saw").isPositive();
            assertThat(seen[1]).as("a follower saw a producer's events out of order").isZero();
            drainer.kill();
            Tally tally = drainAll(log);
            assertThat(tally.violations()).as("events folded twice or out of order").isZero();
            for (int p = 0; p < 3; p++) {
                assertThat(tally.count(p)).isEqualTo(EVENTS);
                assertThat(tally.last(p)).isEqualTo(EVENTS);
            }
            assertThat(log.emittedCount()).isEqualTo(3 * EVENTS);
            assertThat(log.gapCount()).isZero();
        }
    }

    @Test
    void emittersAndDrainersKilledAtRandomPointsLoseNothingAcknowledgedAndFoldNothingTwice() {
        Path path = dir.resolve("kills.cxc");
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long[] acked = new long[3];
        try (var log = open(path, 256)) {
            ChildJvm steady = child("steady", path, 256);
            steady.ask("emit-loop 0 " + EVENTS);
            for (int kill = 0; kill < KILLS; kill++) {
                // Producer 1 and 2 alternate lives: each life emits from 1 again, so a producer's
                // numbers restart; the tally is checked per life through the acked high-water mark.
                int producer = 1 + (kill % 2);
                ChildJvm victim = child("victim-" + kill, path, 256);
                ChildJvm drainer = child("drainer-" + kill, path, 256);
                drainer.ask("drain-loop");
                long before = log.readCurrent().last(producer);
                victim.ask(
                        "emit-loop "
                                + producer
                                + " "
                                + (before + EVENTS)
                                + " from "
                                + (before + 1));
                String ack = victim.awaitPrefixed("acked ", STEP);
                acked[producer] = Math.max(acked[producer], Long.parseLong(ack));
                // Kill both at a random point of their hot loops.
                busyFor(random.nextInt(1, 20));
                victim.kill();
                busyFor(random.nextInt(0, 5));
                drainer.kill();
                Tally tally = drainAll(log);
                assertThat(tally.violations()).as("after kill %d", kill).isZero();
                assertThat(tally.last(producer)).isGreaterThanOrEqualTo(acked[producer]);
                assertThat(tally.count(producer)).isEqualTo(tally.last(producer));
            }
            steady.awaitPrefixed("done ", STEP);
            Tally tally = drainAll(log);
            assertThat(tally.violations()).isZero();
            assertThat(tally.count(0)).isEqualTo(EVENTS);
            assertThat(log.gapCount())
                    .as("gaps are only the killed emitters' in-flight events")
                    .isLessThanOrEqualTo(KILLS);
        }
    }

    @Test
    void anEmitterKilledBetweenReservingAndCommittingLeavesAGapThatNeverBlocksTheLog() {
        Path path = dir.resolve("reserve.cxc");
        try (var log = open(path, 8)) {
            ChildJvm victim = child("victim", path, 8);
            log.emit(Tally.Event.of(0, 1));
            victim.ask("pause-at SLOT_RESERVED");
            victim.send("emit 1 1");
            victim.awaitPrefixed("paused ", STEP);
            for (long n = 2; n <= 4; n++) {
                log.emit(Tally.Event.of(0, n)); // emitters are not blocked by the reservation
            }
            assertThat(log.drainAndFold(Tally::fold))
                    .as("stops at the live reservation")
                    .isEqualTo(1);
            victim.kill();
            // Judged dead through /proc at once: skipped as a gap, everything after it folded.
            assertThat(log.drainAndFold(Tally::fold)).isEqualTo(3);
            Tally tally = log.readCurrent();
            assertThat(tally.count(0)).isEqualTo(4);
            assertThat(tally.count(1)).isZero();
            assertThat(log.gapCount()).isEqualTo(1);
            assertThat(log.foldedCount()).isEqualTo(log.emittedCount()).isEqualTo(5);
            List<Long> followed = new ArrayList<>();
            log.reader(0).poll(e -> followed.add(e.n()));
            assertThat(followed).containsExactly(1L, 2L, 3L, 4L);
            for (long n = 5; n <= 12; n++) {
                log.emit(Tally.Event.of(0, n)); // its slot is reused on the next laps
            }
            assertThat(log.drainAndFold(Tally::fold)).isEqualTo(8);
            assertThat(log.readCurrent().violations()).isZero();
        }
    }

    @Test
    void aDrainerKilledMidFoldLeavesTheOldStateAndItsTurnIsTakenOverAtOnce() {
        Path path = dir.resolve("fold.cxc");
        try (var log = open(path, 64)) {
            for (long n = 1; n <= 50; n++) {
                log.emit(Tally.Event.of(2, n));
            }
            ChildJvm drainer = child("drainer", path, 64);
            drainer.ask("pause-at FOLD_COMPUTED");
            drainer.send("drain");
            drainer.awaitPrefixed("paused ", STEP);
            assertThat(log.drainerPid()).isEqualTo(drainer.pid());
            assertThat(log.readCurrent()).isEqualTo(Tally.EMPTY);
            assertThat(log.foldedCount()).isZero();
            drainer.kill();
            // Dead through /proc: no grace to wait out, so a short wait is enough.
            assertThat(log.drainAndFold(Tally::fold, Duration.ofSeconds(5))).isEqualTo(50);
            Tally tally = log.readCurrent();
            assertThat(tally.count(2)).isEqualTo(50);
            assertThat(tally.violations()).isZero();
            assertThat(log.drainerPid()).isZero();
        }
    }

    static void join(Thread thread) {
        try {
            thread.join(STEP.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Lets the children run for about {@code millis}, without sleeping as synchronisation. */
    static void busyFor(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
