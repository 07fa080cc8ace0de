package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The liveness family across real JVMs on one file: registration, kills, barriers, reclaims. */
class LivenessProcessTest {

    static final Duration STEP = Duration.ofSeconds(30);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    ChildJvm child(String name, String... setup) {
        ChildJvm child =
                children.add(
                        ChildJvm.start(name, LivenessChild.class)
                                .eventsAre(line -> line.startsWith("progress")));
        for (String command : setup) {
            child.ask(command);
        }
        return child;
    }

    /** Sends a command and returns its answer, failing on an error answer. */
    @Test
    void fourJvmsRegisterConcurrentlyInDistinctSlotsAndAKilledOnesSlotGoesStaleThenIsReused() {
        Path path = dir.resolve("heartbeat.cxc");
        HeartbeatTable.TYPE.create(path, new HeartbeatTable.Settings(4)).close();
        List<ChildJvm> jvms = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            jvms.add(child("hb-" + i, "heartbeat-open " + path + " 4"));
        }
        jvms.forEach(c -> c.send("register")); // all at once
        Map<ChildJvm, Integer> slots = new HashMap<>();
        for (ChildJvm c : jvms) {
            slots.put(c, Integer.parseInt(c.awaitPrefixed("slot ", STEP)));
        }
        assertThat(new HashSet<>(slots.values())).containsExactlyInAnyOrder(0, 1, 2, 3);
        jvms.forEach(c -> c.ask("beat-loop 20"));

        ChildJvm victim = jvms.get(1);
        int victimSlot = slots.get(victim);
        victim.kill();

        ChildJvm survivor = jvms.get(0);
        await().atMost(STEP)
                .until(() -> survivor.ask("status " + victimSlot + " 3").equals("status STALE"));
        for (ChildJvm other : List.of(jvms.get(0), jvms.get(2), jvms.get(3))) {
            assertThat(survivor.ask("status " + slots.get(other) + " 3")).isEqualTo("status LIVE");
        }

        ChildJvm newcomer = child("hb-new", "heartbeat-open " + path + " 4");
        assertThat(newcomer.ask("register")).isEqualTo("slot " + victimSlot);
        try (HeartbeatTable table =
                HeartbeatTable.TYPE.open(path, new HeartbeatTable.Settings(4))) {
            assertThat(table.snapshot(victimSlot).orElseThrow().pid()).isEqualTo(newcomer.pid());
        }
    }

    @Test
    void threeJvmsRun200PhasesAndNoneStartsAPhaseBeforeAllFinishedThePrevious() throws IOException {
        Path barrier = dir.resolve("barrier.cxc");
        Path log = dir.resolve("phases.log");
        EpochBarrier.TYPE.create(barrier, new EpochBarrier.Settings(3)).close();
        List<ChildJvm> jvms = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jvms.add(child("phase-" + i, "barrier-open " + barrier + " 3"));
        }
        // Join only once all are up: a joined participant that stays silent for the grace
        // before its first await would be dropped.
        jvms.forEach(c -> c.ask("join"));
        jvms.forEach(c -> c.send("run-phases 200 " + log + " 0"));
        for (ChildJvm c : jvms) {
            c.awaitPrefixed("done ", Duration.ofSeconds(60));
        }

        List<String[]> lines = readLog(log);
        assertThat(lines).hasSize(3 * 200 * 2);
        assertPhasesNeverOverlap(lines);
        for (ChildJvm c : jvms) {
            assertThat(phasesEndedBy(lines, c.pid())).isEqualTo(200);
        }
    }

    @Test
    void aJvmKilledMidRunReleasesTheOthersWhoGoOn() throws IOException {
        Path barrier = dir.resolve("barrier.cxc");
        Path log = dir.resolve("phases.log");
        // Default grace, 5 × 200 ms; a killed process is noticed sooner, by the PID probe.
        EpochBarrier.TYPE.create(barrier, new EpochBarrier.Settings(3)).close();
        List<ChildJvm> jvms = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jvms.add(child("phase-" + i, "barrier-open " + barrier + " 3"));
        }
        // Join only once all are up: a joined participant that stays silent for the grace
        // before its first await would be dropped.
        jvms.forEach(c -> c.ask("join"));
        // 1 ms of simulated work per phase keeps the run long enough to kill one inside it.
        jvms.forEach(c -> c.send("run-phases 300 " + log + " 1000"));
        ChildJvm victim = jvms.get(2);
        victim.awaitLine(line -> line.equals("progress 100"), STEP);
        victim.kill();

        for (ChildJvm survivor : jvms.subList(0, 2)) {
            survivor.awaitPrefixed("done ", Duration.ofSeconds(60));
        }
        List<String[]> lines = readLog(log);
        assertPhasesNeverOverlap(lines);
        for (ChildJvm survivor : jvms.subList(0, 2)) {
            assertThat(phasesEndedBy(lines, survivor.pid())).isEqualTo(300);
        }
        assertThat(phasesEndedBy(lines, victim.pid())).isBetween(100, 299);
        try (EpochBarrier view = EpochBarrier.TYPE.open(barrier, new EpochBarrier.Settings(3))) {
            assertThat(view.participants())
                    .extracting(BarrierParticipant::pid)
                    .containsExactlyInAnyOrder(jvms.get(0).pid(), jvms.get(1).pid());
        }
    }

    @Test
    void aFrozenJvmIsDroppedAfterTheGraceAndLearnsItWhenItThaws() throws IOException {
        Path barrier = dir.resolve("barrier.cxc");
        Path log = dir.resolve("phases.log");
        // Grace 5 × 100 ms. A stopped process is alive to the PID probe: only the grace drops it.
        EpochBarrier.TYPE
                .create(
                        barrier,
                        new EpochBarrier.Settings(3, Duration.ofMillis(100), 5),
                        CxcFileOptions.defaults())
                .close();
        List<ChildJvm> jvms = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jvms.add(child("phase-" + i, "barrier-open " + barrier + " 3"));
        }
        jvms.forEach(c -> c.ask("join"));
        jvms.forEach(c -> c.send("run-phases 300 " + log + " 1000"));
        ChildJvm frozen = jvms.get(2);
        frozen.awaitLine(line -> line.equals("progress 50"), STEP);
        frozen.suspend();
        try {
            for (ChildJvm survivor : jvms.subList(0, 2)) {
                survivor.awaitPrefixed("done ", Duration.ofSeconds(60));
            }
        } finally {
            frozen.resume();
        }
        assertThat(frozen.awaitPrefixed("error ", STEP))
                .contains("SlotLostException")
                .contains("dropped");

        String frozenPid = Long.toString(frozen.pid());
        List<String[]> survivorsLines =
                readLog(log).stream().filter(l -> !l[2].equals(frozenPid)).toList();
        assertPhasesNeverOverlap(survivorsLines);
        for (ChildJvm survivor : jvms.subList(0, 2)) {
            assertThat(phasesEndedBy(survivorsLines, survivor.pid())).isEqualTo(300);
        }
    }

    @Test
    void twoJvmsScanningTheSameWatchdogAfterAKillMoveEveryWorkIdExactlyOnce() {
        Path heartbeat = dir.resolve("heartbeat.cxc");
        Path watchdogPath = dir.resolve("watchdog.cxc");
        HeartbeatTable.TYPE.create(heartbeat, new HeartbeatTable.Settings(4)).close();
        FailoverWatchdog.TYPE
                .create(
                        watchdogPath,
                        FailoverWatchdog.Settings.watching(watchdogPath, heartbeat, 4096),
                        CxcFileOptions.defaults())
                .close();
        String[] setup = {"heartbeat-open " + heartbeat + " 4", "watchdog-open " + watchdogPath};

        ChildJvm victim = child("victim", setup);
        int victimSlot = Integer.parseInt(victim.ask("register").substring("slot ".length()));
        victim.ask("assign 1000 4000"); // enough for the two scans to overlap
        ChildJvm first = child("scanner-1", setup);
        ChildJvm second = child("scanner-2", setup);
        for (ChildJvm scanner : List.of(first, second)) {
            scanner.ask("register");
            scanner.ask("beat-loop 50");
        }
        victim.kill();

        long at = System.nanoTime() + 300_000_000L; // CLOCK_MONOTONIC: the same in every JVM
        first.send("scan-at " + at);
        second.send("scan-at " + at);
        List<long[]> moves = new ArrayList<>(movedIds(first.awaitPrefixed("moved ", STEP)));
        moves.addAll(movedIds(second.awaitPrefixed("moved ", STEP)));

        // Out of the victim's slot, each work id moved exactly once, by one scanner or the other.
        // (Under heavy load a scanner may also look stale to the other, which may then move work
        // on from it: allowed, and still never duplicates a work id.)
        Set<Long> expected =
                LongStream.range(1000, 5000).boxed().collect(Collectors.toUnmodifiableSet());
        List<Long> movedFromVictim =
                moves.stream().filter(m -> m[1] == victimSlot).map(m -> m[0]).toList();
        assertThat(movedFromVictim).hasSize(4000).containsExactlyInAnyOrderElementsOf(expected);
        try (FailoverWatchdog watchdog =
                FailoverWatchdog.open(
                        watchdogPath,
                        FailoverWatchdog.Settings.watching(watchdogPath, heartbeat, 4096))) {
            List<WorkAssignment> owned = watchdog.assignments();
            assertThat(owned)
                    .extracting(WorkAssignment::workId)
                    .containsExactlyInAnyOrderElementsOf(expected); // each exactly once
            Set<Long> scannerPids = Set.of(first.pid(), second.pid());
            for (WorkAssignment assignment : owned) {
                long ownerPid =
                        watchdog.heartbeatTable().snapshot(assignment.slot()).orElseThrow().pid();
                assertThat(scannerPids).contains(ownerPid);
            }
        }
    }

    // ------------------------------------------------------------------------------ helpers

    /** "N id>fromSlot,..." as {workId, fromSlot} pairs. */
    static List<long[]> movedIds(String answer) {
        String[] parts = answer.split(" ", 2);
        if (parts.length < 2 || parts[1].isEmpty()) {
            return List.of();
        }
        return Arrays.stream(parts[1].split(","))
                .map(m -> m.split(">"))
                .map(m -> new long[] {Long.parseLong(m[0]), Long.parseLong(m[1])})
                .toList();
    }

    static List<String[]> readLog(Path log) throws IOException {
        return Files.readAllLines(log).stream().map(line -> line.split(" ")).toList();
    }

    /** Every "end n" line comes before every "start n+1" line, in the order the writes happened. */
    static void assertPhasesNeverOverlap(List<String[]> lines) {
        Map<Integer, Integer> lastEnd = new HashMap<>();
        Map<Integer, Integer> firstStart = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            int phase = Integer.parseInt(lines.get(i)[1]);
            if (lines.get(i)[0].equals("end")) {
                lastEnd.put(phase, i);
            } else {
                firstStart.putIfAbsent(phase, i);
            }
        }
        for (Map.Entry<Integer, Integer> end : lastEnd.entrySet()) {
            Integer nextStart = firstStart.get(end.getKey() + 1);
            if (nextStart != null) {
                assertThat(nextStart)
                        .as(
                                "first start of phase %d (line %d) after last end of phase %d"
                                        + " (line %d)",
                                end.getKey() + 1, nextStart, end.getKey(), end.getValue())
                        .isGreaterThan(end.getValue());
            }
        }
    }

    static int phasesEndedBy(List<String[]> lines, long pid) {
        String id = Long.toString(pid);
        return (int) lines.stream().filter(l -> l[0].equals("end") && l[2].equals(id)).count();
    }
}
