package io.subetha.cxc.boot;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A tier of leadership above the host election (the {@code cxc-zookeeper} module's global leader
 * election), as operators see it: a bean of this type adds a {@code global} section to {@code
 * /actuator/cxc} and to the {@code cxc} health details, and turns health DOWN while it reports a
 * problem.
 */
public interface CxcGlobalTier {

    /** What {@code /actuator/cxc} and the health details show under {@code global}. */
    Map<String, Object> describe();

    /** Why this process cannot take part in the global tier right now, or null if it can. */
    @Nullable String problem();
}
