package io.subetha.cxc.shedlock.boot;

import io.subetha.cxc.lease.OwnerLease;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The lease file behind the auto-configured ShedLock {@code LockProvider}. */
@ConfigurationProperties("cxc.shedlock")
public class CxcShedLockProperties {

    /** Whether to auto-configure the cxc LockProvider (when no other LockProvider bean exists). */
    private boolean enabled = true;

    /** The lease file's name in cxc.directory, without ".cxc": a plain file name. */
    private String name = "shedlock";

    /**
     * The most lock names held at once, 1..65536 (when the file is full, a name without a live
     * holder gives its slot to a new one, so any number of distinct names come and go); fixed when
     * the file is created.
     */
    private int capacity = OwnerLease.Settings.DEFAULT_CAPACITY;

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
}
