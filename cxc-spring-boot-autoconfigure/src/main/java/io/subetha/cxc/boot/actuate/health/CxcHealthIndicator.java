package io.subetha.cxc.boot.actuate.health;

import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.SharedLeaderElection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code cxc} health contributor: UP with the leader's details while the ticker runs; DOWN when
 * the ticker has stopped, its last election round failed, or the election file at the configured
 * path is no longer the file this process mapped (deleted or replaced: processes that start now
 * would elect a second leader in the new file). With a tier above the host election (a {@link
 * LeadershipTier} bean), its state is shown under {@code global} and its problem (no ZooKeeper
 * connection, say) turns health DOWN too.
 */
public final class CxcHealthIndicator extends AbstractHealthIndicator {

    private final LeaderTicker ticker;
    private final @Nullable LeadershipTier global;

    public CxcHealthIndicator(LeaderTicker ticker) {
        this(ticker, null);
    }

    /**
     * @param global the tier above the host election, or null; its problem turns health DOWN
     */
    public CxcHealthIndicator(LeaderTicker ticker, @Nullable LeadershipTier global) {
        super("cxc health check failed");
        this.ticker = ticker;
        this.global = global;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        SharedLeaderElection election = ticker.election();
        LeaderSnapshot snapshot = election.snapshot();
        long self = ticker.participant().pid();
        builder.withDetail("pid", self)
                .withDetail("leader", snapshot.leaderPid())
                .withDetail("self", snapshot.leaderPid() == self)
                .withDetail("term", snapshot.term())
                .withDetail("globalEpoch", snapshot.globalEpoch())
                .withDetail("heartbeatLagEpochs", snapshot.heartbeatLag())
                .withDetail("file", election.file().toString());
        String problem = problem(election);
        if (global != null) {
            builder.withDetail("global", global.describe());
            if (problem == null) {
                problem = global.problem();
            }
        }
        if (problem != null) {
            builder.down().withDetail("reason", problem);
        } else {
            builder.up();
        }
    }

    private @Nullable String problem(SharedLeaderElection election) {
        if (!ticker.isRunning()) {
            return "the cxc ticker is not running: this process neither beats nor claims";
        }
        if (election.isClosed()) {
            return "the election file is closed";
        }
        Throwable failure = ticker.lastFailure();
        if (failure != null) {
            return "the last election round failed: " + failure;
        }
        Path file = election.file();
        try {
            Object key =
                    Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                            .fileKey();
            if (!Objects.equals(key, election.fileKey())) {
                return file
                        + " was replaced by another file: processes that open it now elect"
                        + " separately from this one";
            }
        } catch (NoSuchFileException e) {
            return file
                    + " was deleted: processes that start now would create a new one and elect"
                    + " a second leader";
        } catch (IOException e) {
            return "cannot check " + file + ": " + e;
        }
        return null;
    }
}
