package io.subetha.cxc.console;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** The operations console ({@code cxc-console} on the classpath). */
@ConfigurationProperties("cxc.console")
public class ConsoleProperties {

    /** Whether to serve the console. */
    private boolean enabled = true;

    /**
     * Where the console is served, on the application's port (or the management port when one is
     * set): the page at this path, its JSON under {path}/api.
     */
    private String path = "/cxc";

    /**
     * Whether the console offers actions (step down, and what the scheduler offers). Off, the
     * buttons are absent and every action's POST answers 404.
     */
    private boolean actions = false;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public boolean isActions() {
        return actions;
    }

    public void setActions(boolean actions) {
        this.actions = actions;
    }
}
