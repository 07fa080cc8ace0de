package io.subetha.cxc.cli;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one look at one file found: its header as the file says (read without trusting it, so it is
 * there even for most damaged files), and either its state or the one problem that stopped it from
 * being opened.
 *
 * @param path the file
 * @param name what to call it (relative to the directory looked in)
 * @param size the file's size in bytes, or -1 if it is not a regular file
 * @param header the header's fields, or null if the file is too short to have one (or unreadable)
 * @param problem the message {@code open} gave, or null if the file is sound
 * @param state {@code describe()} plus the liveness probes; empty if {@code problem} is set
 */
record FileReport(
        Path path,
        String name,
        long size,
        @Nullable Header header,
        @Nullable String problem,
        Map<String, Object> state) {

    /**
     * The common header's fields, undecoded beyond naming the kind.
     *
     * @param kind the kind's name, or null if this CXC knows no kind of that code
     */
    record Header(
            @Nullable String kind,
            int kindCode,
            int layoutVersion,
            long creatorPid,
            Instant createdAt) {}

    boolean isSound() {
        return problem == null;
    }
}
