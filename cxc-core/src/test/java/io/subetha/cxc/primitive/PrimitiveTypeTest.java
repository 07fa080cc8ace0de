package io.subetha.cxc.primitive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFileAccessException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import java.nio.ReadOnlyBufferException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What every primitive gets from its type: one create/open path, typed payloads, its own ops. */
class PrimitiveTypeTest {

    @TempDir Path dir;

    record Order(long id, int quantity) {}

    @Test
    @SuppressWarnings("unchecked")
    void aTypedFileRecordsItsCodecAndRefusesAnotherOnOpen() throws Exception {
        Path path = dir.resolve("cell.cxc");
        FixedCodec<Order> orders = FixedCodec.record(Order.class);
        try (TypedCell<Order> cell =
                (TypedCell<Order>)
                        TypedCell.TYPE.create(
                                path, new TypedCell.Settings(orders), CxcFileOptions.defaults())) {
            cell.set(orders, new Order(7, 3));
        }
        try (TypedCell<Order> reopened =
                (TypedCell<Order>)
                        TypedCell.TYPE.open(
                                path, new TypedCell.Settings(orders), CxcFileOptions.defaults())) {
            assertThat(reopened.get(orders)).isEqualTo(new Order(7, 3));
        }
        byte[] before = Files.readAllBytes(path);

        assertThatThrownBy(
                        () ->
                                TypedCell.TYPE.open(
                                        path,
                                        new TypedCell.Settings(FixedCodec.INT64),
                                        CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining(path.toString())
                .hasMessageContaining(FixedCodec.INT64.describe())
                .hasMessageContaining(String.format("0x%016x", FixedCodec.INT64.fingerprint()))
                .hasMessageContaining("payload sizes " + orders.size())
                .hasMessageContaining("left untouched");
        assertThatThrownBy(
                        () ->
                                TypedCell.TYPE.openOrCreate(
                                        path,
                                        new TypedCell.Settings(FixedCodec.string(8)),
                                        CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class);
        assertThat(Files.readAllBytes(path)).isEqualTo(before);
    }

    @Test
    void eachPrimitiveExportsExactlyItsOwnOps() {
        assertThat(HeartbeatTable.TYPE.ops())
                .extracting(op -> op.name())
                .containsExactly("beat", "register", "tick_epoch", "scan", "unregister", "read");
        assertThat(FailoverWatchdog.TYPE.ops())
                .extracting(op -> op.name())
                .containsExactly("scan", "read", "assign", "complete");
        assertThat(EpochBarrier.TYPE.ops())
                .extracting(op -> op.code())
                .containsExactly(1, 2, 3, 5, 6, 7);
        assertThat(TypedCell.TYPE.ops()).extracting(op -> op.code()).containsExactly(1, 3);
        try (HeartbeatTable table = HeartbeatTable.create(dir.resolve("t.cxc"), 2)) {
            assertThat(table.opCounts())
                    .containsOnlyKeys(
                            "beat", "register", "tick_epoch", "scan", "unregister", "read");
        }
    }

    @Test
    void aReadOnlyViewReadsEverythingWritesNothingAndCreatesNothing() throws Exception {
        Path path = dir.resolve("participants.heartbeat");
        try (HeartbeatTable table = HeartbeatTable.create(path, 4)) {
            table.register(ProcessHandle.current().pid());
            byte[] before = Files.readAllBytes(path);
            try (HeartbeatTable view =
                    HeartbeatTable.open(path, CxcFileOptions.defaults().asReadOnly())) {
                Map<String, Object> state = view.describe();
                assertThat(state).containsEntry("capacity", 4);
                assertThat((java.util.List<?>) state.get("slots")).hasSize(1);
                assertThatThrownBy(() -> view.register(1))
                        .isInstanceOf(ReadOnlyBufferException.class);
            }
            assertThat(Files.readAllBytes(path)).isEqualTo(before);
        }
        assertThatThrownBy(
                        () ->
                                SharedLeaderElection.TYPE.create(
                                        dir.resolve("new.cxc"),
                                        SharedLeaderElection.Settings.DEFAULTS,
                                        CxcFileOptions.defaults().asReadOnly()))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("read-only");
        assertThat(dir.resolve("new.cxc")).doesNotExist();
    }

    @Test
    void describeIsWhatToStringShows() {
        try (SharedLeaderElection election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            election.tryClaimLeadership(42, 3);
            long term = election.electionTerm(); // the boot-seconds seed, plus one
            assertThat(election.describe())
                    .containsEntry("leaderPid", 42L)
                    .containsEntry("term", term);
            assertThat(election.toString())
                    .startsWith("leader-election " + dir.resolve("l.cxc"))
                    .contains("leaderPid=42", "term=" + term);
        }
    }
}
