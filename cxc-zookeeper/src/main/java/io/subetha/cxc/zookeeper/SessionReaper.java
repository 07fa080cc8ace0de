package io.subetha.cxc.zookeeper;

import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a dead host-mate's ZooKeeper session at once, so the lock nodes it owned go now rather than
 * after the session timeout.
 *
 * <p>Every process that creates lock nodes first puts its session on record in the host's directory
 * ({@code zk-session-<pid>}: PID, start time, session id and password; readable by the host's user
 * only, like the lease files themselves). Every such process also sweeps the directory: a record
 * whose process {@code /proc} shows dead (PID and start time: a reused PID is not it) is claimed by
 * an atomic rename, the session is re-attached with its id and password and closed — ZooKeeper then
 * deletes all of its ephemeral nodes in one step, as it would at expiry (the technique of
 * curator-test's former {@code KillSession}). A process shown alive, or whose state {@code /proc}
 * cannot tell, is never touched. Only processes of this host are judged: the directory is
 * host-local.
 */
final class SessionReaper {

    private static final Logger logger = LoggerFactory.getLogger(SessionReaper.class);
    private static final String PREFIX = "zk-session-";
    private static final String CLAIMED = ".reaping-";

    private final Path directory;
    private final long pid;
    private final long startTime;
    private final String connectString;
    private final Duration connectionTimeout;

    SessionReaper(
            Path directory,
            long pid,
            long startTime,
            String connectString,
            Duration connectionTimeout) {
        this.directory = directory;
        this.pid = pid;
        this.startTime = startTime;
        this.connectString = connectString;
        this.connectionTimeout = connectionTimeout;
    }

    /** Puts this process's current session on record, replacing the previous one atomically. */
    void record(long sessionId, byte[] password) throws IOException {
        Files.createDirectories(directory);
        String text =
                pid
                        + " "
                        + startTime
                        + " "
                        + Long.toHexString(sessionId)
                        + " "
                        + Base64.getEncoder().encodeToString(password)
                        + "\n";
        Path temporary = directory.resolve(PREFIX + pid + ".tmp");
        Files.writeString(temporary, text, StandardCharsets.US_ASCII);
        try {
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the directory's own permissions guard it
        }
        Files.move(
                temporary,
                directory.resolve(PREFIX + pid),
                StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /** Takes this process's session off record (it closed the session itself). */
    void forget() {
        try {
            Files.deleteIfExists(directory.resolve(PREFIX + pid));
        } catch (IOException e) {
            logger.debug("cxc: cannot delete this process's session record", e);
        }
    }

    /** One sweep of the host's records: ends the sessions of dead processes. */
    void sweep() {
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (DirectoryStream<Path> records = Files.newDirectoryStream(directory, PREFIX + "*")) {
            for (Path record : records) {
                String name = record.getFileName().toString();
                if (name.endsWith(".tmp")) {
                    continue;
                }
                reapIfDead(record, name);
            }
        } catch (IOException e) {
            logger.debug("cxc: cannot list the session records in {}", directory, e);
        }
    }

    private void reapIfDead(Path record, String name) {
        int claimed = name.indexOf(CLAIMED);
        if (claimed >= 0) {
            // Another reaper's claim: retake it only if that reaper died too.
            long reaper = Long.parseLong(name.substring(claimed + CLAIMED.length()));
            if (reaper == pid || ProcessProbe.status(reaper, 0) != ProcessStatus.DEAD) {
                return;
            }
        }
        String[] fields;
        try {
            fields = Files.readString(record, StandardCharsets.US_ASCII).trim().split(" ");
        } catch (NoSuchFileException gone) {
            return;
        } catch (IOException e) {
            logger.debug("cxc: cannot read {}", record, e);
            return;
        }
        if (fields.length != 4) {
            return; // not ours to judge
        }
        long holder = Long.parseLong(fields[0]);
        long holderStart = Long.parseLong(fields[1]);
        if (holder == pid || ProcessProbe.status(holder, holderStart) != ProcessStatus.DEAD) {
            return;
        }
        Path claim = directory.resolve(PREFIX + holder + CLAIMED + pid);
        try {
            Files.move(record, claim, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException | AtomicMoveNotSupportedException e) {
            return; // another host-mate claimed it first
        } catch (IOException e) {
            logger.debug("cxc: cannot claim {}", record, e);
            return;
        }
        long session = Long.parseUnsignedLong(fields[2], 16);
        byte[] password = Base64.getDecoder().decode(fields[3]);
        if (endSession(session, password)) {
            logger.info(
                    "cxc: ended the ZooKeeper session 0x{} of dead process {}: its lock nodes"
                            + " are gone",
                    Long.toHexString(session),
                    holder);
            try {
                Files.deleteIfExists(claim);
            } catch (IOException e) {
                logger.debug("cxc: cannot delete {}", claim, e);
            }
        } else {
            try {
                Files.move(claim, record, StandardCopyOption.ATOMIC_MOVE); // the next sweep retries
            } catch (IOException e) {
                logger.debug("cxc: cannot give back {}", claim, e);
            }
        }
    }

    /** Re-attaches a dead process's session and closes it; true once it is surely over. */
    private boolean endSession(long session, byte[] password) {
        CountDownLatch answered = new CountDownLatch(1);
        Watcher watcher =
                event -> {
                    if (event.getState() == Watcher.Event.KeeperState.SyncConnected
                            || event.getState() == Watcher.Event.KeeperState.Expired) {
                        answered.countDown();
                    }
                };
        ZooKeeper zooKeeper = null;
        try {
            zooKeeper =
                    new ZooKeeper(
                            connectString,
                            (int) connectionTimeout.toMillis(),
                            watcher,
                            session,
                            password);
            if (!answered.await(connectionTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return false; // no ensemble now: the next sweep tries again
            }
            return true;
        } catch (IOException e) {
            logger.debug("cxc: cannot reach ZooKeeper to end session 0x{}", session, e);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            if (zooKeeper != null) {
                try {
                    zooKeeper.close(); // a closeSession: the server deletes its ephemeral nodes
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
