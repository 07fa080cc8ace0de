package io.subetha.cxc.zookeeper.boot;

import java.util.Locale;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The ZooKeeper backend is on when {@code cxc.leader.backend=zookeeper}, or when {@code
 * cxc.leader.backend} is unset and {@code cxc.zookeeper.connect-string} is set; {@code
 * cxc.leader.backend=local} keeps it off.
 */
class OnZooKeeperBackendCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(
            ConditionContext context, AnnotatedTypeMetadata metadata) {
        String backend = context.getEnvironment().getProperty("cxc.leader.backend", "");
        String connect = context.getEnvironment().getProperty("cxc.zookeeper.connect-string", "");
        String normalized = backend.trim().toLowerCase(Locale.ROOT);
        if (normalized.equals("zookeeper")) {
            return ConditionOutcome.match("cxc.leader.backend=zookeeper");
        }
        if (normalized.isEmpty() && !connect.isBlank()) {
            return ConditionOutcome.match("cxc.zookeeper.connect-string is set");
        }
        return ConditionOutcome.noMatch(
                normalized.isEmpty()
                        ? "neither cxc.leader.backend nor cxc.zookeeper.connect-string is set"
                        : "cxc.leader.backend=" + backend);
    }
}
