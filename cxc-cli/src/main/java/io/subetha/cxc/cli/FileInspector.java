package io.subetha.cxc.cli;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.internal.FileHeader;
import io.subetha.cxc.internal.MappedFiles;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.ownership.OwnerStatus;
import io.subetha.cxc.ownership.SharedLeaderElection;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Looks at one file without trusting it: reads its header with a plain read, then opens it
 * read-only through the {@link PrimitiveType} of the kind the header names, which validates
 * everything before mapping; a sound file's state is its {@code describe()} plus the liveness
 * probes {@code describe()} leaves out (it probes no process): whether the leader's process is
 * alive, and each slot's or participant's status.
 *
 * <p><b>Messages.</b> A problem is the exception message {@code open} gives, verbatim, when the
 * header names a kind this CXC knows. When it names none (the file is shorter than a header, or its
 * bytes are not a cxc header at all), no kind can be trusted: the file is opened as the first kind
 * and the message says "a cxc file" where {@code open} names that kind. A well-formed header of an
 * unknown kind code gets a message of this class's own.
 */
final class FileInspector {

    /**
     * Read-only options. A file under its real name was published complete (by a hard link, after
     * its initialised marker), so the wait for an unpublished marker can be short: such a file is
     * damaged, not in the making.
     */
    static final CxcFileOptions READ_ONLY =
            CxcFileOptions.defaults()
                    .asReadOnly()
                    .withInitialisationTimeout(Duration.ofMillis(250));

    private final long graceEpochs;

    /**
     * @param graceEpochs how many epochs a heartbeat may lag before its slot counts as stale
     */
    FileInspector(long graceEpochs) {
        this.graceEpochs = graceEpochs;
    }

    /**
     * Every file under {@code root} (see {@link CandidateFiles}), in path order; files that
     * disappear while they are looked at are left out.
     */
    List<FileReport> inspectAll(Path root) throws IOException {
        List<FileReport> reports = new ArrayList<>();
        for (CandidateFiles.Candidate candidate : CandidateFiles.under(root)) {
            inspect(candidate).ifPresent(reports::add);
        }
        return reports;
    }

    /**
     * @return the report, or empty if the file disappeared before it could be looked at
     */
    Optional<FileReport> inspect(CandidateFiles.Candidate candidate) {
        Path path = candidate.path();
        if (candidate.listingFailure() != null) {
            return Optional.of(
                    problem(
                            candidate,
                            -1,
                            null,
                            "cannot list the directory "
                                    + path
                                    + ": "
                                    + reason(candidate.listingFailure())));
        }
        BasicFileAttributes attributes;
        try {
            attributes =
                    Files.readAttributes(
                            path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException gone) {
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of(
                    problem(candidate, -1, null, "cannot read " + path + ": " + reason(e)));
        }
        long size = attributes.isRegularFile() ? attributes.size() : -1;
        FileHeader raw = null;
        try {
            // Only a regular file is read: opening a FIFO would block.
            if (attributes.isRegularFile() && size >= HeaderDescriptor.HEADER_LENGTH) {
                raw = MappedFiles.readHeader(path);
            }
        } catch (CxcException e) {
            return Optional.of(problem(candidate, size, null, e.getMessage()));
        }
        FileReport.Header header = raw == null ? null : headerOf(raw);
        PrimitiveKinds.Kind kind =
                raw == null ? null : PrimitiveKinds.ofCode(raw.kindCode()).orElse(null);
        if (kind == null && raw != null && raw.magic() == HeaderDescriptor.MAGIC) {
            return Optional.of(problem(candidate, size, header, unknownKind(path, raw)));
        }
        PrimitiveType<?, ?> type =
                kind != null ? PrimitiveKinds.typeOf(kind) : PrimitiveKinds.types().get(0);
        try (MappedPrimitive primitive = type.open(path, READ_ONLY)) {
            return Optional.of(
                    new FileReport(path, candidate.name(), size, header, null, stateOf(primitive)));
        } catch (CxcException e) {
            if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            String message = e.getMessage();
            return Optional.of(
                    problem(
                            candidate,
                            size,
                            header,
                            kind != null ? message : asAnyKind(message, type)));
        } catch (RuntimeException e) {
            // A bug, or memory another program scribbled on while it was read: say which file.
            return Optional.of(
                    problem(candidate, size, header, "cannot inspect " + path + ": " + e));
        }
    }

    private static FileReport problem(
            CandidateFiles.Candidate candidate,
            long size,
            FileReport.@Nullable Header header,
            String message) {
        return new FileReport(candidate.path(), candidate.name(), size, header, message, Map.of());
    }

    private static FileReport.Header headerOf(FileHeader h) {
        return new FileReport.Header(
                PrimitiveKinds.nameOf(h.kindCode()).orElse(null),
                h.kindCode(),
                h.layoutVersion(),
                h.creatorPid(),
                Instant.ofEpochMilli(h.createdAtMillis()));
    }

    /** {@code open}'s message for a file of no trustworthy kind, without the kind it assumed. */
    static String asAnyKind(String message, PrimitiveType<?, ?> assumed) {
        String as = " as " + assumed.kind().withArticle();
        return message.replace(
                        as + " file (layout version " + assumed.layoutVersion() + ")",
                        " as a cxc file")
                .replace(as + " file", " as a cxc file");
    }

    private static String unknownKind(Path path, FileHeader header) {
        return "cannot open "
                + path
                + " as a cxc file: it holds an unknown kind (code "
                + Integer.toUnsignedString(header.kindCode())
                + "): a newer CXC release wrote it (use that release's cxc), or its header is"
                + " corrupt. The file was left untouched.";
    }

    private static String reason(IOException e) {
        return e instanceof java.nio.file.AccessDeniedException
                ? "permission denied"
                : e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null
                        ? fse.getReason()
                        : e.toString();
    }

    // ------------------------------------------------------------------------------ probes

    /** {@code describe()}, with each primitive's liveness probes beside what they judge. */
    private Map<String, Object> stateOf(MappedPrimitive primitive) {
        Map<String, Object> state = primitive.describe();
        if (primitive instanceof SharedLeaderElection election) {
            long leader = number(state.get("leaderPid"));
            String status =
                    leader == SharedLeaderElection.NO_LEADER
                            ? "NONE"
                            : election.leaderStatus().name();
            return insertAfter(state, "leaderPid", "leaderStatus", status);
        }
        if (primitive instanceof HeartbeatTable table) {
            return withEach(state, "slots", slot -> slotStatus(table, slot));
        }
        if (primitive instanceof FailoverWatchdog watchdog) {
            HeartbeatTable table = watchdog.heartbeatTable();
            return withEach(
                    state,
                    "assignments",
                    a ->
                            Map.of(
                                    "ownerStatus",
                                    table.status((int) number(a.get("slot")), graceEpochs).name()));
        }
        if (primitive instanceof EpochBarrier barrier) {
            long graceMillis = barrier.grace().toMillis();
            return withEach(state, "participants", p -> participantStatus(p, graceMillis));
        }
        return state;
    }

    private Map<String, Object> slotStatus(HeartbeatTable table, Map<String, Object> slot) {
        OwnerStatus status = table.status((int) number(slot.get("slot")), graceEpochs);
        return orderedOf("status", status.name(), "alive", status == OwnerStatus.LIVE);
    }

    /**
     * A participant is stale once silent longer than the barrier's grace, dead once its process is
     * gone; the barrier's slot keeps no start time a reused PID could be told apart by.
     */
    private static Map<String, Object> participantStatus(Map<String, Object> p, long graceMillis) {
        OwnerStatus status;
        if (number(p.get("silentMillis")) > graceMillis) {
            status = OwnerStatus.STALE;
        } else if (ProcessProbe.status(number(p.get("pid")), ProcessProbe.UNKNOWN_START_TIME)
                == ProcessStatus.DEAD) {
            status = OwnerStatus.DEAD;
        } else {
            status = OwnerStatus.LIVE;
        }
        return orderedOf("status", status.name(), "alive", status == OwnerStatus.LIVE);
    }

    private static long number(@Nullable Object value) {
        return value instanceof Number n ? n.longValue() : 0;
    }

    private static Map<String, Object> orderedOf(String k1, Object v1, String k2, Object v2) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(k1, v1);
        map.put(k2, v2);
        return map;
    }

    private static Map<String, Object> insertAfter(
            Map<String, Object> map, String after, String key, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>();
        map.forEach(
                (k, v) -> {
                    copy.put(k, v);
                    if (k.equals(after)) {
                        copy.put(key, value);
                    }
                });
        copy.putIfAbsent(key, value);
        return copy;
    }

    /** The state with {@code key}'s list of maps each extended by {@code extra}. */
    private static Map<String, Object> withEach(
            Map<String, Object> state,
            String key,
            Function<Map<String, Object>, Map<String, Object>> extra) {
        if (!(state.get(key) instanceof List<?> list)) {
            return state;
        }
        List<Map<String, Object>> extended = new ArrayList<>();
        for (Object item : list) {
            @SuppressWarnings("unchecked")
            Map<String, Object> entry = (Map<String, Object>) item;
            Map<String, Object> copy = new LinkedHashMap<>(entry);
            copy.putAll(extra.apply(entry));
            extended.add(copy);
        }
        Map<String, Object> copy = new LinkedHashMap<>(state);
        copy.put(key, extended);
        return copy;
    }
}
