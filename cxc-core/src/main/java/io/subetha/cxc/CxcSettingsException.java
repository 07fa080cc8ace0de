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

    /**
     * Throws unless a body of {@code bodyLength} bytes fits in one file, whose body holds at most
     * {@code limit} bytes: settings each inside its own range can still need more together.
     *
     * @param setting the component to name: the one that multiplies ({@code "capacity"})
     * @param settings the values that made the length: "capacity 1048576 of 65536-byte items"
     */
    public static void requireBodyFits(
            String setting, String settings, long bodyLength, long limit) {
        if (bodyLength > limit) {
            throw new CxcSettingsException(
                    setting,
                    settings
                            + " need a body of "
                            + bodyLength
                            + " bytes, more than one file holds ("
                            + limit
                            + " bytes); lower "
                            + setting
                            + " or the payload size");
        }
    }
}
