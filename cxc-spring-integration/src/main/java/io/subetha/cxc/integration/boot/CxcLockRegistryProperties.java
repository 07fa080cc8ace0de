package io.subetha.cxc.integration.boot;

import io.subetha.cxc.integration.CxcLockRegistry;
import io.subetha.cxc.lease.OwnerLease;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The lease file behind the auto-configured Spring Integration {@code LockRegistry}. */
@ConfigurationProperties("cxc.lock-registry")
public class CxcLockRegistryProperties {

    /** Whether to auto-configure the cxc LockRegistry (when no other LockRegistry bean exists). */
    private boolean enabled = true;

    /** The lease file's name in cxc.directory, without ".cxc": a plain file name. */
    private String name = "locks";

    /**
     * The most distinct lock keys the file holds (a key keeps its slot for the life of the file),
     * 1..65536; fixed when the file is created.
     */
    private int capacity = OwnerLease.Settings.DEFAULT_CAPACITY;

    /**
     * How long a lock holds unless unlocked or renewed (a dead holder's is freed at once whatever
     * this is), up to 24 days. Default: 24 days, in effect until unlock.
     */
    private Duration ttl = CxcLockRegistry.DEFAULT_TTL;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public int getCapacity() {
        return capacity;
    }

    public void setCapacity(int capacity) {
        this.capacity = capacity;
    }

    public Duration getTtl() {
        return ttl;
    }

    public void setTtl(Duration ttl) {
        this.ttl = ttl;
    }
}
