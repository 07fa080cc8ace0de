package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFileAccessException;
import io.subetha.cxc.election.FencedLedger.WriteOutcome;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fenced ledger's rules, across threads and processes: what it accepts and refuses, what it
 * counts (each read op once, each write's outcome in exactly one of the shared counters) and shows,
 * and a raising write whose CAS loses (held with a {@link StepGate} between reading the fence word
 * and its CAS while another writer raises the mark higher) deciding again against the new mark.
 */
class FencedLedgerTest {
    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void firstWriteRaisesTheMarkAndNamesItsHolder() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            assertThat(ledger.highestTerm()).isZero();
            assertThat(ledger.holderPid()).isZero();

            assertThat(ledger.write(1, 500)).isEqualTo(WriteOutcome.ACCEPTED);

            assertThat(ledger.highestTerm()).isEqualTo(1);
            assertThat(ledger.holderPid()).isEqualTo(500);
            assertThat(ledger.acceptedWrites()).isEqualTo(1);
        }
    }

    @Test
    void theHolderWritesManyTimesUnderItsTerm() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            for (int i = 0; i < 10; i++) {
                assertThat(ledger.write(4, 500)).isEqualTo(WriteOutcome.ACCEPTED);
            }
            assertThat(ledger.acceptedWrites()).isEqualTo(10);
            assertThat(ledger.highestTerm()).isEqualTo(4);
        }
    }

    @Test
    void aLowerTermIsRejectedOnceAHigherOneWasSeen() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            ledger.write(1, 500); // the old leader
            ledger.write(2, 700); // its successor

            assertThat(ledger.write(1, 500)).isEqualTo(WriteOutcome.REJECTED_STALE_TERM);

            assertThat(ledger.highestTerm()).isEqualTo(2);
            assertThat(ledger.holderPid()).isEqualTo(700);
            assertThat(ledger.acceptedWrites()).isEqualTo(2);
            assertThat(ledger.rejectedStaleWrites()).isEqualTo(1);
        }
    }

    @Test
    void termsMayBeSkipped() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            ledger.write(1, 500);
            // Terms 2..4 led without writing: the next writer's term is simply higher.
            assertThat(ledger.write(5, 300)).isEqualTo(WriteOutcome.ACCEPTED);
            assertThat(ledger.write(4, 400)).isEqualTo(WriteOutcome.REJECTED_STALE_TERM);
        }
    }

    @Test
    void theSameTermFromAnotherPidIsAConflict() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            ledger.write(3, 500);

            assertThat(ledger.write(3, 501)).isEqualTo(WriteOutcome.REJECTED_TERM_CONFLICT);

            assertThat(ledger.holderPid()).isEqualTo(500);
            assertThat(ledger.rejectedConflictingWrites()).isEqualTo(1);
            assertThat(ledger.acceptedWrites()).isEqualTo(1);
        }
    }

    @Test
    void invalidTermsAndPidsAreRejectedWithoutCounting() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            assertThatThrownBy(() -> ledger.write(0, 500))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("term 0");
            assertThatThrownBy(() -> ledger.write(1L << 32, 500))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> ledger.write(1, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PID 0");
            assertThatThrownBy(() -> ledger.write(1, 1L << 32))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(ledger.opCounts()).containsEntry("write", 0L);
            assertThat(ledger.highestTerm()).isZero();
        }
    }

    @Test
    void largestU32TermIsAccepted() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            assertThat(ledger.write(FencedLedgerDescriptor.MAX_TERM, 9))
                    .isEqualTo(WriteOutcome.ACCEPTED);
            assertThat(ledger.highestTerm()).isEqualTo(FencedLedgerDescriptor.MAX_TERM);
        }
    }

    @Test
    void createFailsIfTheFileExistsAndOpenSharesState() throws Exception {
        Path path = dir.resolve("ledger.cxc");
        try (var first = FencedLedger.TYPE.create(path, FencedLedger.Settings.NONE);
                var second = FencedLedger.open(path);
                var third = FencedLedger.openOrCreate(path)) {
            first.write(2, 500);
            assertThat(second.highestTerm()).isEqualTo(2);
            assertThat(third.write(1, 600)).isEqualTo(WriteOutcome.REJECTED_STALE_TERM);
            assertThat(first.rejectedStaleWrites()).isEqualTo(1);
            assertThat(third.createdFile()).isFalse();
        }
        assertThatThrownBy(() -> FencedLedger.TYPE.create(path, FencedLedger.Settings.NONE))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("already exists");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path)))
                .isEqualTo("rw-------");
    }

    @Test
    void opsAreCountedByKind() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            ledger.write(1, 5);
            ledger.write(1, 5);
            ledger.highestTerm();
            assertThat(ledger.opCounts()).containsEntry("write", 2L).containsEntry("read", 1L);
            assertThat(ledger.kind()).isEqualTo("fenced-ledger");
            assertThat(ledger.name()).isEqualTo("ledger.cxc");
        }
    }

    /** Threads race ever-rising terms: accepted terms, in acceptance order, never decrease. */
    @Test
    void concurrentWritersNeverGetALowerTermAcceptedAfterAHigherOne() throws Exception {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            int threads = 4;
            int writes = 20_000;
            CyclicBarrier start = new CyclicBarrier(threads);
            AtomicLong violations = new AtomicLong();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long pid = 100 + t;
                Thread worker =
                        new Thread(
                                () -> {
                                    try {
                                        start.await();
                                    } catch (Exception e) {
                                        throw new IllegalStateException(e);
                                    }
                                    // Each thread owns terms t+1, t+1+threads, ...: disjoint.
                                    for (int i = 0; i < writes; i++) {
                                        long term = 1 + (pid - 100) + (long) i * threads;
                                        WriteOutcome outcome = ledger.write(term, pid);
                                        long highest = ledger.highestTerm();
                                        if (outcome.accepted() && highest < term) {
                                            violations.incrementAndGet();
                                        }
                                        if (!outcome.accepted() && highest <= term) {
                                            violations.incrementAndGet();
                                        }
                                    }
                                });
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            assertThat(violations).hasValue(0);
            assertThat(ledger.acceptedWrites() + ledger.rejectedStaleWrites())
                    .isEqualTo((long) threads * writes);
            assertThat(ledger.highestTerm()).isEqualTo((long) threads * (writes - 1) + threads);
        }
    }

    /** Two real JVMs: the child's write under a lower term is refused after ours. */
    @Test
    void aDeposedWriterInAnotherProcessIsRefused() throws Exception {
        Path path = dir.resolve("ledger.cxc");
        try (var ledger = FencedLedger.TYPE.create(path, FencedLedger.Settings.NONE)) {
            ChildJvm child =
                    children.add(ChildJvm.start("writer", LedgerWriter.class, path.toString()));
            child.send("write 1");
            assertThat(child.awaitPrefixed("outcome ", Duration.ofSeconds(30)))
                    .isEqualTo("ACCEPTED");

            assertThat(ledger.write(2, ProcessHandle.current().pid()))
                    .isEqualTo(WriteOutcome.ACCEPTED);

            child.send("write 1");
            assertThat(child.awaitPrefixed("outcome ", Duration.ofSeconds(30)))
                    .isEqualTo("REJECTED_STALE_TERM");
            assertThat(ledger.rejectedStaleWrites()).isEqualTo(1);
            assertThat(ledger.acceptedWrites()).isEqualTo(2);
        }
    }

    /** Child main: writes under the term read from each stdin line. */
    public static final class LedgerWriter {
        public static void main(String[] args) throws Exception {
            try (var ledger = FencedLedger.open(Path.of(args[0]));
                    var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in))) {
                String line;
                while ((line = in.readLine()) != null) {
                    long term = Long.parseLong(line.substring("write ".length()));
                    System.out.println(
                            "outcome " + ledger.write(term, ProcessHandle.current().pid()));
                    System.out.flush();
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------ counts

    @Test
    void everyReadIsCountedOnce() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            ledger.holderPid();
            ledger.acceptedWrites();
            ledger.rejectedStaleWrites();
            ledger.rejectedConflictingWrites();
            ledger.highestTerm();
            assertThat(ledger.opCounts()).containsEntry("read", 5L).containsEntry("write", 0L);
        }
    }

    @Test
    void eachOutcomeIsCountedInItsOneCounter() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            assertThat(ledger.write(7, 500)).isEqualTo(WriteOutcome.ACCEPTED);
            assertThat(ledger.acceptedWrites()).as("a raise is one accepted write").isEqualTo(1);
            assertThat(ledger.write(7, 500).accepted()).isTrue();
            assertThat(ledger.write(6, 500).accepted()).isFalse();
            assertThat(ledger.write(7, 501)).isEqualTo(WriteOutcome.REJECTED_TERM_CONFLICT);
            assertThat(ledger.write(7, 501).accepted()).isFalse();
            assertThat(ledger.acceptedWrites()).isEqualTo(2);
            assertThat(ledger.rejectedStaleWrites()).isEqualTo(1);
            assertThat(ledger.rejectedConflictingWrites()).isEqualTo(2);
            assertThat(ledger.describe())
                    .containsEntry("highestTerm", 7L)
                    .containsEntry("holderPid", 500L)
                    .containsEntry("acceptedWrites", 2L)
                    .containsEntry("rejectedStaleWrites", 1L)
                    .containsEntry("rejectedConflictingWrites", 2L);
        }
    }

    // -------------------------------------------------------- a raising write that loses its CAS

    static final long PID = Pids.current();

    @Test
    void aRaisingWriteWhoseCasLosesToAHigherTermIsRefusedAsStale() {
        try (FencedLedger ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            StepGate<WriteOutcome> lower =
                    StepGate.holdAt(Point.FENCE_READ, () -> ledger.write(5, PID));
            assertThat(ledger.write(7, 1)).isEqualTo(WriteOutcome.ACCEPTED);

            assertThat(lower.release()).isEqualTo(WriteOutcome.REJECTED_STALE_TERM);
            assertThat(ledger.highestTerm()).isEqualTo(7);
            assertThat(ledger.holderPid()).isEqualTo(1);
            assertThat(ledger.acceptedWrites()).isEqualTo(1);
            assertThat(ledger.rejectedStaleWrites()).isEqualTo(1);
        }
    }
}
