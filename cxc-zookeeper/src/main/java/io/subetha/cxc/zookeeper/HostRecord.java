package io.subetha.cxc.zookeeper;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * The host-local file the ZooKeeper tier keeps beside the election file: which process of this host
 * holds the ZooKeeper session (PID, start time, session id, latch node), and who leads globally as
 * that process last saw it. Written only by the host leader, replaced atomically (a temporary file
 * renamed over it), read by its host-mates:
 *
 * <ul>
 *   <li>a host-mate that becomes host leader reads the holder, and if {@code /proc} shows that
 *       process dead, deletes every latch node the holder's session owns, so the next candidate on
 *       any host leads at once instead of after the session timeout;
 *   <li>every process on the host, session or not, reads the global leader from it.
 * </ul>
 *
 * <p>Every such deletion is appended to a second file, the deletions log, one line each: what was
 * deleted, whose it was, what {@code /proc} said. Both files are owner-only ({@code rw-------}).
 */
public final class HostRecord {

    /** What the file says. {@code holderPid == 0}: nobody recorded a session yet. */
    public record Contents(
            long holderPid,
            long holderStartTime,
            long holderSession,
            @Nullable String holderNode,
            long leaderPid,
            @Nullable String leaderHost,
            long leaderTerm) {

        static final Contents EMPTY = new Contents(0, 0, 0, null, 0, null, 0);
    }

    private final Path file;
    private final Path deletionsLog;

    public HostRecord(Path file, Path deletionsLog) {
        this.file = file;
        this.deletionsLog = deletionsLog;
    }

    public Path file() {
        return file;
    }

    public Path deletionsLog() {
        return deletionsLog;
    }

    /** The current contents; {@link Contents#EMPTY}-like when the file does not exist. */
    public Contents read() {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return Contents.EMPTY;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the ZooKeeper host record " + file, e);
        }
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) {
            return Contents.EMPTY; // unreadable: as if nobody recorded anything (never deletes)
        }
        return new Contents(
                number(p, "holder.pid"),
                number(p, "holder.start-time"),
                number(p, "holder.session"),
                p.getProperty("holder.node"),
                number(p, "leader.pid"),
                p.getProperty("leader.host"),
                number(p, "leader.term"));
    }

    private static long number(Properties p, String key) {
        String value = p.getProperty(key);
        if (value == null) {
            return 0;
        }
        try {
            return value.startsWith("0x")
                    ? Long.parseUnsignedLong(value.substring(2), 16)
                    : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Replaces the file with {@code contents}, atomically. */
    public void write(Contents c) {
        StringBuilder text = new StringBuilder();
        text.append(
                "# cxc ZooKeeper tier: written by this host's leader, read by its host-mates\n");
        text.append("holder.pid=").append(c.holderPid()).append('\n');
        text.append("holder.start-time=").append(c.holderStartTime()).append('\n');
        text.append("holder.session=0x").append(Long.toHexString(c.holderSession())).append('\n');
        if (c.holderNode() != null) {
            text.append("holder.node=").append(c.holderNode()).append('\n');
        }
        text.append("leader.pid=").append(c.leaderPid()).append('\n');
        if (c.leaderHost() != null) {
            text.append("leader.host=").append(escape(c.leaderHost())).append('\n');
        }
        text.append("leader.term=").append(c.leaderTerm()).append('\n');
        Path temp =
                file.resolveSibling(
                        "." + file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        try {
            Files.deleteIfExists(temp);
            Files.createFile(
                    temp,
                    PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rw-------")));
            Files.writeString(temp, text, StandardCharsets.US_ASCII);
            // Replacing is the point here: the newest holder's record wins.
            Files.move(
                    temp,
                    file,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // best effort
            }
            throw new IllegalStateException("cannot write the ZooKeeper host record " + file, e);
        }
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\")
                .replace("\n", " ")
                .replace("=", "\\=")
                .replace(":", "\\:");
    }

    /** Appends one line to the deletions log. */
    public void logDeletion(
            long deletedPid,
            long deletedStartTime,
            String probeStatus,
            long session,
            String node,
            long byPid) {
        String line =
                Instant.now()
                        + " nanoTime="
                        + System.nanoTime()
                        + " deleted="
                        + node
                        + " session=0x"
                        + Long.toHexString(session)
                        + " pid="
                        + deletedPid
                        + " start-time="
                        + deletedStartTime
                        + " proc="
                        + probeStatus
                        + " by="
                        + byPid
                        + "\n";
        try {
            if (!Files.exists(deletionsLog)) {
                try {
                    Files.createFile(
                            deletionsLog,
                            PosixFilePermissions.asFileAttribute(
                                    PosixFilePermissions.fromString("rw-------")));
                } catch (FileAlreadyExistsException ignored) {
                    // a host-mate created it first
                }
            }
            Files.writeString(
                    deletionsLog, line, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new IllegalStateException("cannot append to " + deletionsLog, e);
        }
    }
}
