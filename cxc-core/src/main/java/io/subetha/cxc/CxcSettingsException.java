package io.subetha.cxc;

/**
 * A primitive's creation setting is out of range: thrown by the settings records' constructors, the
 * one place each limit is written. Names the setting as the record component is named ({@code
 * capacity}, {@code heartbeatInterval}), so a caller that bound it from configuration (the Spring
 * Boot starter) can name the property it came from.
 */
public class CxcSettingsException extends IllegalArgumentException {

    private final String setting;

    /**
     * @param setting the record component: {@code "capacity"}
     * @param message what is wrong and what is allowed: "capacity must be 1..1024, got 0"
     */
    public CxcSettingsException(String setting, String message) {
        super(message);
        this.setting = setting;
    }

    /** The record component the bad value was given for. */
    public String setting() {
        return setting;
    }

    /** Throws unless {@code min <= value <= max}. */
    public static int requireInRange(String setting, int value, int min, int max, String hint) {
        if (value < min || value > max) {
            throw new CxcSettingsException(
                    setting, setting + " must be " + min + ".." + max + hint + ", got " + value);
        }
        return value;
    }
}
