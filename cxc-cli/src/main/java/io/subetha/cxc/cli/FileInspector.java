package io.subetha.cxc.cli;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.catalog.PrimitiveCatalog;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.primitive.PrimitiveView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
                raw = PrimitiveCatalog.readHeader(path);
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
                kind != null ? PrimitiveCatalog.typeOf(kind) : PrimitiveCatalog.TYPES.get(0);
        try (PrimitiveView view = type.observe(path, READ_ONLY)) {
            return Optional.of(
                    new FileReport(
                            path, candidate.name(), size, header, null, view.inspect(graceEpochs)));
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
}
