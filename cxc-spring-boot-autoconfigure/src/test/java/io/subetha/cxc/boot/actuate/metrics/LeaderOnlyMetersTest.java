package io.subetha.cxc.boot.actuate.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.aop.LeaderOnlyAdvisor;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.ManualTicks;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.aop.framework.ProxyFactory;

/**
 * {@code cxc.leader.only} when calls are also observed: the observing site still counts each
 * outcome and hands the call's result back, and the run is one observation. Through a real advisor
 * proxy over a real election file; no context.
 */
class LeaderOnlyMetersTest {

    @TempDir Path temp;

    /** What the proxy offers. */
    public interface Calls {
        String work();
    }

    static class Work implements Calls {
        @Override
        @LeaderOnly
        public String work() {
            return "done";
        }
    }

    @Test
    void anObservedCallIsCountedObservedAndReturnsItsResult() {
        List<String> observed = new CopyOnWriteArrayList<>();
        ObservationRegistry observations = ObservationRegistry.create();
        observations
                .observationConfig()
                .observationHandler(
                        new ObservationHandler<Observation.Context>() {
                            @Override
                            public boolean supportsContext(Observation.Context context) {
                                return true;
                            }

                            @Override
                            public void onStop(Observation.Context context) {
                                observed.add(context.getName());
                            }
                        });
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        LeaderOnlyMeters observer = new LeaderOnlyMeters(meters, observations);
        try (SharedLeaderElection election =
                SharedLeaderElection.openOrCreate(temp.resolve("leader.cxc"))) {
            LeaderTicker ticker =
                    new LeaderTicker(
                            new ElectionParticipant(
                                    election, Pids.current(), 3, Duration.ofHours(1)),
                            event -> {},
                            true,
                            List.of());
            ManualTicks.tick(ticker); // this process leads
            ProxyFactory factory = new ProxyFactory(new Work());
            factory.addInterface(Calls.class);
            factory.addAdvisor(
                    new LeaderOnlyAdvisor(
                            () -> ticker.leadership(), () -> observer, Pids.current()));
            Calls calls = (Calls) factory.getProxy();

            assertThat(calls.work()).isEqualTo("done");
            assertThat(observed).containsExactly(LeaderOnlyMeters.OBSERVATION);
            assertThat(
                            meters.get(LeaderOnlyMeters.COUNTER)
                                    .tags("method", "work", "outcome", "ran")
                                    .counter()
                                    .count())
                    .isEqualTo(1);
            assertThat(
                            meters.get(LeaderOnlyMeters.COUNTER)
                                    .tags("method", "work", "outcome", "skipped")
                                    .counter()
                                    .count())
                    .isZero();
        }
    }
}
