package io.subetha.cxc.console;

import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint.CxcDescriptor;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the console's overview shows: the {@code /actuator/cxc} answer (directory, leader,
 * participants, the tier above, every primitive with its {@code describe()} and op counts), the
 * recent terms, how often the page should ask again and which actions it may offer.
 */
public final class ConsoleOverview {

    /** The page never asks more often than this, however fast the ticker. */
    static final Duration FASTEST_POLL = Duration.ofMillis(250);

    /** ...nor less often than this, so "stale" means something. */
    static final Duration SLOWEST_POLL = Duration.ofSeconds(5);

    private final CxcEndpoint endpoint;
    private final @Nullable LeadershipHistory history;
    private final Duration poll;
    private final List<String> actions;
    private final Clock clock;

    /**
     * @param endpoint reads the state: the actuator's own bean, or one made for the console
     * @param tickInterval the ticker's, or null when this process runs none
     * @param actions the names of the actions offered, empty when actions are off
     */
    public ConsoleOverview(
            CxcEndpoint endpoint,
            @Nullable LeadershipHistory history,
            @Nullable Duration tickInterval,
            List<String> actions,
            Clock clock) {
        this.endpoint = endpoint;
        this.history = history;
        this.poll = pollInterval(tickInterval);
        this.actions = List.copyOf(actions);
        this.clock = clock;
    }

    /**
     * @param generatedAtMillis when this answer was made (epoch ms): the page calls its data stale
     *     when it has had no answer for a few poll intervals
     * @param pollIntervalMillis how often the page asks: the ticker's pace, within bounds
     * @param terms the recent leadership terms this process saw, newest first
     * @param actions the actions the page may offer, empty when actions are off
     */
    public record Overview(
            long generatedAtMillis,
            long pollIntervalMillis,
            CxcDescriptor cxc,
            List<LeadershipHistory.Term> terms,
            List<String> actions) {}

    public Overview read() {
        return new Overview(
                clock.millis(),
                poll.toMillis(),
                endpoint.cxc(),
                history == null ? List.of() : history.recent(),
                actions);
    }

    static Duration pollInterval(@Nullable Duration tickInterval) {
        if (tickInterval == null) {
            return Duration.ofSeconds(1);
        }
        if (tickInterval.compareTo(FASTEST_POLL) < 0) {
            return FASTEST_POLL;
        }
        return tickInterval.compareTo(SLOWEST_POLL) > 0 ? SLOWEST_POLL : tickInterval;
    }
}
