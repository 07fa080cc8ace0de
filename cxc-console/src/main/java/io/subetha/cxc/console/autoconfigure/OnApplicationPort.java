package io.subetha.cxc.console.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Whether the console is served on the application's port: unless Actuator's auto-configuration is
 * there and {@code management.server.port} differs, in which case the management child context
 * serves it ({@link ConsoleManagementContextConfiguration}).
 */
class OnApplicationPort implements Condition {

    private static final String PORT_TYPE =
            "org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType";

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
        if (!ClassUtils.isPresent(PORT_TYPE, context.getClassLoader())) {
            return true;
        }
        return ManagementPortOf.type(context) != ManagementPortType.DIFFERENT;
    }

    /** Apart, so this condition loads without Actuator. */
    private static final class ManagementPortOf {
        static ManagementPortType type(ConditionContext context) {
            return ManagementPortType.get(context.getEnvironment());
        }
    }
}
