package io.subetha.cxc.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.shedlock.ScheduledJobApp.Ledger;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ShedLock's own {@code @SchedulerLock}, through shedlock-spring, in three real Boot applications
 * on one host sharing the auto-configured cxc provider: every tick's job runs on exactly one of
 * them, never two at once; the holder SIGKILLed mid-job is replaced at the next tick, not after its
 * hour of {@code lockAtMostFor}.
 */
class ShedLockProcessTest {

    /** Seconds of ticks before the kill (the 10 s; lower it on a slow machine). */
    private static final int RUN_SECONDS = Integer.getInteger("cxc.shedlock.run-seconds", 10);

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void threeBootAppsRunEachTickOnceAndAKilledHoldersNextTickRunsElsewhere() throws Exception {
        Path cxc = Files.createDirectory(dir.resolve("cxc"));
        Files.setPosixFilePermissions(cxc, PosixFilePermissions.fromString("rwx------"));
        Path ledgerFile = dir.resolve("ledger");
        Ledger ledger = Ledger.map(ledgerFile);
        long base = System.currentTimeMillis() / ScheduledJobApp.TICK_MILLIS;
        ledger.buffer().setLongVolatile(Ledger.BASE_TICK, base);

        List<ChildJvm> apps = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            apps.add(
                    children.add(
                            ChildJvm.start(
                                    "shedlock-app-" + i,
                                    ScheduledJobApp.class,
                                    "--ledger=" + ledgerFile,
                                    "--cxc.directory=" + cxc,
                                    "--cxc.leader.enabled=false",
                                    "--spring.main.banner-mode=off",
                                    "--logging.level.root=WARN")));
        }
        for (ChildJvm app : apps) {
            app.awaitPrefixed("started ", Duration.ofSeconds(90));
        }
        long from = System.currentTimeMillis() / ScheduledJobApp.TICK_MILLIS - base + 1;
        await().pollInterval(Duration.ofMillis(200))
                .atMost(Duration.ofSeconds(RUN_SECONDS + 60L))
                .until(
                        () ->
                                System.currentTimeMillis() / ScheduledJobApp.TICK_MILLIS - base
                                        >= from + RUN_SECONDS * 5L);
        long to = System.currentTimeMillis() / ScheduledJobApp.TICK_MILLIS - base;

        int ran = 0;
        long lastToken = 0;
        java.util.Set<Long> runners = new java.util.HashSet<>();
        for (long index = from; index < to; index++) {
            long entry = ledger.entry(index);
            if (entry != 0) {
                ran++;
                long token = entry >>> 32;
                assertThat(token).as("token of tick %d", index).isGreaterThan(lastToken);
                lastToken = token;
                runners.add(entry & 0xFFFF_FFFFL);
            }
        }
        assertThat(ledger.buffer().getLongVolatile(Ledger.OVERLAPS)).as("concurrent runs").isZero();
        assertThat(ledger.buffer().getLongVolatile(Ledger.DUPLICATES))
                .as("ticks run twice")
                .isZero();
        // A loaded machine may stall all three past a tick; most ticks run.
        assertThat(ran).as("ticks run of %d", to - from).isGreaterThan((int) (to - from) / 2);

        // The next job to run hangs holding the lock (lockAtMostFor: an hour); kill it.
        ledger.buffer().setLongVolatile(Ledger.HANG, 1);
        long hanger =
                await().pollInterval(Duration.ofMillis(10))
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> ledger.buffer().getLongVolatile(Ledger.HANG), v -> v > 1);
        ChildJvm holder =
                apps.stream().filter(app -> app.pid() == hanger).findFirst().orElseThrow();
        long hangingTick = Long.parseLong(holder.awaitPrefixed("hanging ", Duration.ofSeconds(30)));
        // A dead holder's lock is free at once: killed inside its own tick, a survivor whose
        // scheduler fired late would run that tick again. Kill it once the tick is over.
        await().pollInterval(Duration.ofMillis(10))
                .atMost(Duration.ofSeconds(5))
                .until(
                        () ->
                                System.currentTimeMillis() / ScheduledJobApp.TICK_MILLIS
                                        > hangingTick);
        holder.kill();
        long killedAt = System.currentTimeMillis() / ScheduledJobApp.TICK_MILLIS - base;
        long next =
                await().pollInterval(Duration.ofMillis(50))
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> firstRunAfter(ledger, killedAt), Optional::isPresent)
                        .orElseThrow();
        assertThat(ledger.entry(next) & 0xFFFF_FFFFL).isNotEqualTo(hanger);
        // The first tick after the kill (one more if all survivors stalled), not an hour later.
        assertThat(next - killedAt).as("ticks after the kill").isLessThanOrEqualTo(3);
        assertThat(ledger.buffer().getLongVolatile(Ledger.DUPLICATES)).isZero();
        System.out.printf(
                "shedlock: %d of %d ticks ran, on %d JVMs; after the kill the next run was %d"
                        + " tick(s) later%n",
                ran, to - from, runners.size(), next - killedAt);
    }

    private static Optional<Long> firstRunAfter(Ledger ledger, long tick) {
        for (long index = tick + 1; index < tick + 100; index++) {
            if (ledger.entry(index) != 0) {
                return Optional.of(index);
            }
        }
        return Optional.empty();
    }
}
