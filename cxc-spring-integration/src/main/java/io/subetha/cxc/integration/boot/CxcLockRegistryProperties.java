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
     * The most lock keys held at once, 1..65536 (when the file is full, a key without a live holder
     * gives its slot to a new one, so any number of distinct keys come and go); fixed when the file
     * is created.
     */
    private int capacity = OwnerLease.Settings.DEFAULT_CAPACITY;

    /**
     * The most lock objects the registry keeps in memory: beyond it, the least recently obtained
     * unlocked ones are forgotten (Spring Integration's JDBC registry's cacheCapacity).
     */
    private int cacheCapacity = CxcLockRegistry.DEFAULT_CACHE_CAPACITY;

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

    public int getCacheCapacity() {
        return cacheCapacity;
    }

    public void setCacheCapacity(int cacheCapacity) {
        this.cacheCapacity = cacheCapacity;
    }

    public Duration getTtl() {
        return ttl;
    }

    public void setTtl(Duration ttl) {
        this.ttl = ttl;
    }
}
