package io.subetha.cxc.boot.ticker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.LeadershipLostEvent;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slow leadership listener must not stop the heartbeat: the events are published on their own
 * thread, so the ticker keeps beating and a second participant never finds the leader stale.
 */
class LeaderTickerEventsTest {

    private static final long GRACE = 3;

    @TempDir Path temp;

    @Test
    void aBlockedGainListenerNeitherStopsTheHeartbeatNorGetsTheLeaderDeposed() throws Exception {
        long me = Pids.current();
        try (SharedLeaderElection election =
                SharedLeaderElection.openOrCreate(temp.resolve("leader.cxc"))) {
            CountDownLatch inListener = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            List<String> delivered = new CopyOnWriteArrayList<>();
            LeaderTicker ticker =
                    new LeaderTicker(
                            new ElectionParticipant(election, me, GRACE, Duration.ofMillis(10)),
                            event -> {
                                delivered.add(
                                        event.getClass().getSimpleName()
                                                + " on "
                                                + Thread.currentThread().getName());
                                if (event instanceof LeadershipGainedEvent) {
                                    inListener.countDown();
                                    try {
                                        release.await(); // a listener loading state on gain
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                }
                            },
                            true,
                            List.of());
            // Started on its own thread: on a ticker that published on the caller's thread the
            // first tick's listener would block start() itself.
            Thread starter = new Thread(ticker::start, "starter");
            starter.setDaemon(true);
            starter.start();
            try {
                assertThat(inListener.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(election.isLeader(me)).isTrue();
                long term = election.electionTerm();
                // A participant with a higher PID that takes over a stale leader.
                ElectionParticipant rival =
                        new ElectionParticipant(election, me + 1, GRACE, Duration.ofMillis(10));

                // While the listener is blocked, the epoch runs well past the grace window; the
                // leader's beats keep up with it each time, and the rival never gets the seat.
                for (int i = 0; i < 4 * GRACE; i++) {
                    long epoch = election.tickEpoch();
                    await().atMost(Duration.ofSeconds(5))
                            .until(() -> election.leaderHeartbeat() >= epoch);
                    assertThat(rival.tick().leader()).isFalse();
                    assertThat(election.termIfLeader(me)).isEqualTo(term);
                }
                assertThat(inListener.getCount()).isZero();
                assertThat(release.getCount()).isEqualTo(1); // still blocked all along
            } finally {
                release.countDown();
                starter.join(10_000);
                ticker.stop(); // steps down: the loss is delivered before stop returns
            }
            assertThat(delivered)
                    .containsExactly(
                            LeadershipGainedEvent.class.getSimpleName()
                                    + " on "
                                    + LeaderTicker.EVENTS_THREAD,
                            LeadershipLostEvent.class.getSimpleName()
                                    + " on "
                                    + LeaderTicker.EVENTS_THREAD);
        }
    }
}
