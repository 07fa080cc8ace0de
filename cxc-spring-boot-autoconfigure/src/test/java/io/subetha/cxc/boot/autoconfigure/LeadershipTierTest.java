package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.LeadershipEvent;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import io.subetha.cxc.boot.ticker.ManualTicks;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;

/**
 * A {@link LeadershipTier} bean plugs a tier above the host election into the starter's ticker: its
 * round runs after each host round, the application's leadership is the tier's over the host's, and
 * the host's leadership edges are not published as the application's events.
 */
class LeadershipTierTest {

    @TempDir Path temp;

    /** A tier that counts its rounds and wraps the host's leadership unchanged. */
    static final class CountingTier implements LeadershipTier {
        final AtomicInteger rounds = new AtomicInteger();
        volatile @Nullable CxcLeadership host;

        @Override
        public void afterHostRound() {
            rounds.incrementAndGet();
        }

        @Override
        public CxcLeadership leadership(CxcLeadership host) {
            this.host = host;
            return host;
        }

        @Override
        public Map<String, Object> describe() {
            return Map.of("backend", "counting");
        }

        @Override
        public @Nullable String problem() {
            return null;
        }
    }

    private final List<LeadershipEvent> events = new CopyOnWriteArrayList<>();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                .withBean(
                        "events",
                        ApplicationListener.class,
                        () -> (ApplicationListener<LeadershipEvent>) events::add)
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"), "cxc.leader.tick-interval=1h");
    }

    @Test
    void aTierIsTickedAfterEachHostRoundAndGivesTheLeadershipWithoutHostEvents() {
        runner().withBean(CountingTier.class, CountingTier::new)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            CountingTier tier = context.getBean(CountingTier.class);
                            LeaderTicker ticker = context.getBean(LeaderTicker.class);
                            int before = tier.rounds.get();
                            assertThat(before).as("the first tick, at start").isPositive();
                            ManualTicks.tick(ticker);
                            assertThat(tier.rounds.get()).isEqualTo(before + 1);
                            assertThat(tier.host).isNotNull();
                            assertThat(context.getBean(CxcLeadership.class)).isSameAs(tier.host);
                            assertThat(tier.host.isLeader()).as("the host election's").isTrue();
                            assertThat(events).as("host edges are the tier's to publish").isEmpty();
                        });
    }

    @Test
    void withoutATierTheHostsEdgesAreTheApplicationsEvents() {
        runner().run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context.getBean(CxcLeadership.class).isLeader()).isTrue();
                            await().until(() -> !events.isEmpty());
                        });
    }
}
