package io.subetha.cxc.boot.ticker;

import io.subetha.cxc.boot.CxcLeadership;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A tier of leadership above this host's election, such as the {@code cxc-zookeeper} module's
 * global election across hosts. With a bean of this type, the starter's ticker runs {@link
 * #afterHostRound()} after every host round, the host's leadership edges are no longer published as
 * the application's {@code LeadershipEvent}s (the tier publishes its own), the {@code
 * CxcLeadership} bean is {@link #leadership(CxcLeadership)} over the host's, and {@code
 * /actuator/cxc} and the {@code cxc} health show the tier under {@code global} (health DOWN while
 * it reports a problem).
 */
public interface LeadershipTier {

    /** This tier's round, on the ticker's thread right after each host round: keep it short. */
    void afterHostRound();

    /**
     * The leadership the application sees (and {@code @LeaderOnly} decides by), given this host's:
     * stepping down goes through {@code host}.
     */
    CxcLeadership leadership(CxcLeadership host);

    /** What {@code /actuator/cxc} and the health details show under {@code global}. */
    Map<String, Object> describe();

    /** Why this process cannot take part in the tier right now, or null if it can. */
    @Nullable String problem();
}
