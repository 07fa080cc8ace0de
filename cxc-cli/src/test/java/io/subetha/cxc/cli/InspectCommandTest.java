package io.subetha.cxc.cli;

import static io.subetha.cxc.cli.Fixtures.ME;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.catalog.PrimitiveCatalog;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.primitive.PrimitiveView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code cxc inspect} on real files made by the primitives in this JVM: the table and the JSON name
 * the right leader and participants, with liveness probed; every kind is shown; files that are not
 * cxc files are reported, creators' temporary files skipped.
 */
class InspectCommandTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path temp;

    private Path dir;
    private final List<AutoCloseable> handles = new ArrayList<>();
    private long deadPid;
    private long term;

    @BeforeEach
    void leaderAndParticipants() throws Exception {
        dir = temp.resolve("app");
        SharedLeaderElection election =
                keep(
                        SharedLeaderElection.TYPE.create(
                                dir.resolve("leader.cxc"), SharedLeaderElection.Settings.DEFAULTS));
        assertThat(election.tryClaimLeadership(ME)).isTrue();
        term = election.electionTerm(); // a new file's term starts at the seconds since boot
        election.tickEpoch();
        election.tickEpoch();
        election.beatAsLeader(ME);
        HeartbeatTable table =
                keep(HeartbeatTable.create(dir.resolve("participants.heartbeat"), 4));
        deadPid = Fixtures.deadPid();
        assertThat(table.register(ME)).isZero();
        assertThat(table.register(deadPid)).isOne();
    }

    @AfterEach
    void closeHandles() throws Exception {
        for (AutoCloseable handle : handles) {
            handle.close();
        }
    }

    private <T extends AutoCloseable> T keep(T handle) {
        handles.add(handle);
        return handle;
    }

    @Test
    void theTableShowsTheLeaderAndEachParticipantWithItsLiveness() {
        CxcRun run = CxcRun.run("inspect", dir.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out())
                .contains(
                        "leader.cxc  leader-election  layout 3  creator pid " + ME + "  576 bytes")
                .containsPattern("(?m)^  leaderPid +" + ME + "$")
                .containsPattern("(?m)^  leaderStatus +ALIVE$")
                .containsPattern("(?m)^  term +" + term + "$")
                .containsPattern("(?m)^  globalEpoch +2$")
                .containsPattern("(?m)^  heartbeatLagEpochs +0$")
                .contains("participants.heartbeat  heartbeat-table  layout 2")
                .containsPattern("(?m)^  slots +2$")
                .containsPattern(
                        "(?m)^    slot +pid +generation +lastBeatEpoch +lagEpochs +startTime +status"
                                + " +alive$")
                .containsPattern("(?m)^    0 +" + ME + " +1 .* LIVE +true$")
                .containsPattern("(?m)^    1 +" + deadPid + " +1 .* DEAD +false$")
                .endsWith("\n2 files: 2 sound, 0 with problems\n");
        assertThat(run.err()).isEmpty();
    }

    @Test
    void theJsonHasTheDocumentedFieldsAndTheSameState() throws Exception {
        CxcRun run = CxcRun.run("inspect", "--json", dir.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode document = JSON.readTree(run.out());
        assertThat(fieldNames(document)).containsExactly("path", "graceEpochs", "files");
        assertThat(document.get("path").asString()).isEqualTo(dir.toString());
        assertThat(document.get("graceEpochs").asLong()).isEqualTo(3);
        JsonNode files = document.get("files");
        assertThat(files.size()).isEqualTo(2);
        JsonNode leader = files.get(0);
        assertThat(fieldNames(leader))
                .containsExactly(
                        "path",
                        "name",
                        "kind",
                        "kindCode",
                        "layoutVersion",
                        "creatorPid",
                        "createdAt",
                        "size",
                        "sound",
                        "problem",
                        "state");
        assertThat(leader.get("name").asString()).isEqualTo("leader.cxc");
        assertThat(leader.get("kind").asString()).isEqualTo("leader-election");
        assertThat(leader.get("kindCode").asInt()).isEqualTo(1);
        assertThat(leader.get("layoutVersion").asInt()).isEqualTo(3);
        assertThat(leader.get("creatorPid").asLong()).isEqualTo(ME);
        assertThat(leader.get("size").asLong()).isEqualTo(Files.size(dir.resolve("leader.cxc")));
        assertThat(leader.get("sound").asBoolean()).isTrue();
        assertThat(leader.get("problem").isNull()).isTrue();
        JsonNode state = leader.get("state");
        assertThat(fieldNames(state))
                .containsExactly(
                        "leaderPid",
                        "leaderStatus",
                        "term",
                        "globalEpoch",
                        "leaderHeartbeat",
                        "heartbeatLagEpochs",
                        "leaderStartTime",
                        "tickIntervalMillis",
                        "graceEpochs",
                        "candidates");
        assertThat(state.get("leaderPid").asLong()).isEqualTo(ME);
        assertThat(state.get("leaderStatus").asString()).isEqualTo("ALIVE");
        assertThat(state.get("term").asLong()).isEqualTo(term);

        JsonNode slots = files.get(1).get("state").get("slots");
        assertThat(slots.size()).isEqualTo(2);
        assertThat(slots.get(0).get("pid").asLong()).isEqualTo(ME);
        assertThat(slots.get(0).get("status").asString()).isEqualTo("LIVE");
        assertThat(slots.get(0).get("alive").asBoolean()).isTrue();
        assertThat(slots.get(1).get("pid").asLong()).isEqualTo(deadPid);
        assertThat(slots.get(1).get("status").asString()).isEqualTo("DEAD");
        assertThat(slots.get(1).get("alive").asBoolean()).isFalse();
    }

    @Test
    void aGraceOfZeroJudgesALaggingSlotStale() throws Exception {
        // Tick the epoch past the slots' beats: with no grace they are stale.
        try (HeartbeatTable table = HeartbeatTable.open(dir.resolve("participants.heartbeat"))) {
            table.tickGlobalEpoch();
        }
        JsonNode slots =
                JSON.readTree(
                                CxcRun.run(
                                                "inspect",
                                                "--json",
                                                "--grace-epochs",
                                                "0",
                                                dir.toString())
                                        .out())
                        .get("files")
                        .get(1)
                        .get("state")
                        .get("slots");
        assertThat(slots.get(0).get("status").asString()).isEqualTo("STALE");
    }

    @Test
    void everyKindIsShownWithWhatItsDescribeSays() throws Exception {
        Path every = temp.resolve("every");
        List<Path> files = Fixtures.oneOfEveryKind(every);

        CxcRun run = CxcRun.run("inspect", "--json", every.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode reported = JSON.readTree(run.out()).get("files");
        List<String> kinds = new ArrayList<>();
        reported.forEach(f -> kinds.add(f.get("kind").asString()));
        assertThat(kinds)
                .containsAll(PrimitiveKinds.all().stream().map(PrimitiveKinds.Kind::name).toList());
        for (Path file : files) {
            JsonNode report = find(reported, file);
            PrimitiveType<?, ?> type =
                    PrimitiveKinds.ofCode(report.get("kindCode").asInt())
                            .map(PrimitiveCatalog::typeOf)
                            .orElseThrow();
            try (PrimitiveView p = type.observe(file, CxcFileOptions.defaults().asReadOnly())) {
                Map<String, Object> described = p.describe();
                assertThat(fieldNames(report.get("state"))).containsAll(described.keySet());
            }
        }
    }

    @Test
    void aFileGivenByPathIsShownUnderThatPath() {
        Path leader = dir.resolve("leader.cxc");

        CxcRun run = CxcRun.run("inspect", leader.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).startsWith(leader + "  leader-election  layout 3");
    }

    @Test
    void filesThatAreNotCxcFilesAreProblemsAndCreatorsTemporaryFilesAreSkipped() throws Exception {
        Files.writeString(dir.resolve("notes.txt"), "not a cxc file");
        Files.write(dir.resolve(".leader.cxc.creating-123-abcdef"), new byte[100]);
        Files.createSymbolicLink(dir.resolve("link.cxc"), dir.resolve("leader.cxc"));
        Path fifo = dir.resolve("pipe");
        assertThat(
                        new ProcessBuilder("mkfifo", fifo.toString())
                                .start()
                                .waitFor(10, TimeUnit.SECONDS))
                .isTrue();
        Path nested = dir.resolve("other-app");
        keep(
                SharedLeaderElection.TYPE.create(
                        nested.resolve("leader.cxc"), SharedLeaderElection.Settings.DEFAULTS));
        // A pass registry's wake socket: not a file to look at.
        java.nio.channels.ServerSocketChannel socket =
                java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
        Files.createDirectory(dir.resolve("calls.passes.wake"));
        socket.bind(
                java.net.UnixDomainSocketAddress.of(dir.resolve("calls.passes.wake/1-a-0.sock")));

        CxcRun run;
        try (socket) {
            run = CxcRun.run("inspect", dir.toString());
        }

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(Cxc.PROBLEMS);
        assertThat(run.out())
                .doesNotContain(".creating-")
                .doesNotContain(".sock")
                .contains(
                        "notes.txt  14 bytes  PROBLEM\n  cannot open "
                                + dir.resolve("notes.txt")
                                + " as a cxc file: the file is 14 bytes, shorter than the 64-byte cxc"
                                + " header")
                .contains(
                        "link.cxc  PROBLEM\n  refusing to open "
                                + dir.resolve("link.cxc")
                                + ": it is a symbolic link")
                .contains("pipe  PROBLEM\n  cannot open " + fifo + ": it is not a regular file")
                .contains("other-app/leader.cxc  leader-election")
                .endsWith("\n6 files: 3 sound, 3 with problems\n");
    }

    @Test
    void aHeaderOfAnUnknownKindSaysSo() throws Exception {
        Path file = dir.resolve("leader.cxc");
        Path future = dir.resolve("future.cxc");
        Files.write(
                future,
                Fixtures.withHeaderInt(
                        Files.readAllBytes(file),
                        io.subetha.cxc.mmf.HeaderDescriptor.KIND_OFFSET,
                        999));

        CxcRun run = CxcRun.run("inspect", future.toString());

        assertThat(run.exitCode()).isEqualTo(Cxc.PROBLEMS);
        assertThat(run.out())
                .contains(future + "  kind 999  layout 3")
                .contains(
                        "cannot open "
                                + future
                                + " as a cxc file: it holds an unknown kind (code 999)");
    }

    @Test
    void anEmptyDirectoryHasNoFiles() throws Exception {
        Path empty = Files.createDirectory(temp.resolve("empty"));

        assertThat(CxcRun.run("inspect", empty.toString()).out()).isEqualTo("no files\n");
        CxcRun json = CxcRun.run("inspect", "--json", empty.toString());
        assertThat(json.exitCode()).isZero();
        assertThat(JSON.readTree(json.out()).get("files").isEmpty()).isTrue();
    }

    static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.propertyNames().forEach(names::add);
        return names;
    }

    private static JsonNode find(JsonNode files, Path file) {
        for (JsonNode f : files) {
            if (f.get("path").asString().equals(file.toString())) {
                return f;
            }
        }
        throw new AssertionError(file + " not reported in " + files);
    }
}
