package io.subetha.cxc.boot.autoconfigure;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/**
 * A property as the user wrote it and where: a refusal that names a switch must name the one the
 * user (or a test annotation) set, not a default the starter assumes.
 */
final class SwitchOrigin {

    private SwitchOrigin() {}

    /**
     * "cxc.leader.enabled=false (from class path resource [application.properties] - 3:1)", or
     * without the origin when the source keeps none.
     */
    static String describe(Environment environment, String property) {
        ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            ConfigurationProperty found = source.getConfigurationProperty(name);
            if (found != null) {
                Origin origin = found.getOrigin();
                return property
                        + "="
                        + found.getValue()
                        + (origin == null ? "" : " (from " + origin + ")");
            }
        }
        return property + " (not set)";
    }
}
